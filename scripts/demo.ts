/**
 * `npm run demo`: the whole product end to end, against the built-in sandbox, through a real MCP client
 * over stdio — the way an agent host would use it. The client declares no elicitation, so the cost
 * confirmation goes through the token flow (quote → "user agrees" → call again with the token).
 *
 * Scenarios are plain functions over a small `Agent` helper; add one to SCENARIOS to show another flow.
 * Shown: a talking video, then a run_model image edit and a template video running concurrently, then spend.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

type Json = Record<string, unknown>;

/** dist/scripts/demo.js → dist/src/index.js */
const ENTRY = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'index.js');
/** A wait_for_jobs call blocks at most this long; hosts cut tool calls at ~60 s (mcp-notes 2.13). */
const WAIT_S = 45;
/** Repeat an unchanged progress line at most this often, so the transcript stays readable. */
const PROGRESS_EVERY_MS = 3_000;

const out = (line = '') => process.stdout.write(`${line}\n`);
const step = (title: string) => out(`\n== ${title}`);

/** What a scenario uses: tool calls as an agent makes them, plus resource reads. */
export interface Agent {
  client: Client;
  call(name: string, args?: Json, onProgress?: (message: string) => void): Promise<CallToolResult & { sc: Json }>;
  /** Confirms a billable call the way an agent does without elicitation: quote, "user agrees", token. */
  createWithConsent(name: string, args: Json): Promise<Json>;
  /** wait_for_jobs until every handle is finished, printing progress. */
  waitAll(handles: string[]): Promise<Json[]>;
}

function makeAgent(client: Client): Agent {
  const agent: Agent = {
    client,
    async call(name, args = {}, onProgress) {
      const r = (await client.callTool(
        { name, arguments: args },
        {
          timeout: (WAIT_S + 15) * 1000,
          ...(onProgress
            ? {
                onprogress: (p: { progress: number; total?: number; message?: string }) =>
                  onProgress(p.message ?? `${p.progress}/${p.total ?? '?'}`),
                resetTimeoutOnProgress: true,
              }
            : {}),
        },
      )) as CallToolResult;
      if (r.isError) {
        const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join(' ');
        throw new Error(`${name} failed: ${text}`);
      }
      return { ...r, sc: (r.structuredContent ?? {}) as Json };
    },
    async createWithConsent(name, args) {
      out(`agent  → ${name}(${JSON.stringify(args)})`);
      const quote = (await agent.call(name, args)).sc;
      if (quote.status !== 'confirmation_required') return quote;
      const est = quote.estimate as { credits: number; api_units: number; basis: string };
      const units = `${est.api_units} API credit unit${est.api_units === 1 ? '' : 's'}`;
      out(`server ← confirmation_required: ${est.credits} credits (${units}), ${est.basis}`);
      out(`         no charge made; token valid until ${quote.expires_at}`);
      out(`agent  : "This costs ${est.credits} credits. OK?"   user: "Yes."`);
      out(`agent  → ${name}(same arguments + confirmation_token)`);
      const started = (await agent.call(name, { ...args, confirmation_token: quote.confirmation_token })).sc;
      out(`server ← ${started.status}: handle ${started.handle} (request id ${started.request_id})`);
      return started;
    },
    async waitAll(handles) {
      let pending = handles;
      // Each call returns envelopes for the handles it was given: keep the newest one per handle.
      const latest = new Map<string, Json>();
      while (pending.length > 0) {
        out(`agent  → wait_for_jobs(${JSON.stringify(pending)})`);
        const since = Date.now();
        let last = '';
        let lastAt = 0;
        // Progress arrives about once a second; print changes, and a heartbeat every few seconds.
        const onProgress = (m: string) => {
          if (m === last && Date.now() - lastAt < PROGRESS_EVERY_MS) return;
          last = m;
          lastAt = Date.now();
          out(`  progress +${((lastAt - since) / 1000).toFixed(0)} s: ${m}`);
        };
        const w = (await agent.call('wait_for_jobs', { handles: pending, max_wait_s: WAIT_S }, onProgress)).sc;
        for (const j of w.jobs as Json[]) latest.set(j.handle as string, j);
        pending = w.pending as string[];
        if (pending.length > 0) out(`server ← still running: ${pending.join(', ')} (calling again)`);
      }
      return handles.map((h) => latest.get(h) ?? { handle: h });
    },
  };
  return agent;
}

/** Browse avatars and voices, create a talking video with consent, wait for it. */
async function talkingVideo(agent: Agent): Promise<void> {
  step('Browse the catalog');
  const avatars = (await agent.call('list_avatars')).sc.avatars as { id: string; name: string; gender?: string }[];
  out(
    `list_avatars: ${avatars.length} avatars, e.g. ${avatars
      .slice(0, 3)
      .map((a) => `${a.name} (${a.id})`)
      .join(', ')}`,
  );
  const voices = (await agent.call('list_voices', { language: 'English' })).sc.voices as { id: string; name: string }[];
  out(`list_voices(English): ${voices.map((v) => `${v.name} (${v.id})`).join(', ')}`);
  const avatar = avatars[0]!;
  const voice = voices[0]!;

  step('Create a talking video (billable)');
  const started = await agent.createWithConsent('create_talking_video', {
    avatar_id: avatar.id,
    voice_id: voice.id,
    video_name: 'Demo: thermos ad',
    voice_script: 'This bottle keeps your coffee hot for twelve hours. Grab yours today!',
  });

  step('Wait for the job');
  const [job] = await agent.waitAll([started.handle as string]);
  const outputs = (job?.outputs ?? []) as { url: string; media: string }[];
  out(`server ← ${job?.status}: ${outputs.map((o) => `${o.media} ${o.url}`).join(', ')}`);
}

/** Jobs started by the scenarios below and awaited together by `waitStarted` (what each one is, for the log). */
const started: { what: string; handle: string }[] = [];

/** A JSON resource's body (the server's resources are all application/json). */
async function readJson(agent: Agent, uri: string): Promise<Json> {
  const first = (await agent.client.readResource({ uri })).contents[0];
  return JSON.parse(first && 'text' in first ? String(first.text) : '{}') as Json;
}

/**
 * A sandbox image to feed models and templates: an avatar thumbnail from genplat://avatars. It is the
 * simulator's own media (a real PNG), which the sandbox trusts as a public URL.
 */
async function sandboxImage(agent: Agent): Promise<string> {
  const { avatars } = (await readJson(agent, 'genplat://avatars')) as { avatars: { thumbnail?: string }[] };
  const url = avatars.find((a) => a.thumbnail)?.thumbnail;
  if (!url) throw new Error('genplat://avatars has no thumbnail to use as an input image');
  return url;
}

/** The imagine-image-edit shape: its params are known (genplat://models/{model}) and cheap (10 credits). */
const IMAGE_MODEL_SUFFIX = '-imagine-image-edit';

/** run_model: list image models, read one model's params, start an edit of a sandbox image with consent. */
async function modelImage(agent: Agent): Promise<void> {
  step('Run a catalog image model (billable)');
  const models = (await agent.call('list_models', { media: 'image' })).sc.models as Json[];
  out(
    `list_models(image): ${models.length} models, e.g. ${models
      .slice(0, 3)
      .map((m) => m.model)
      .join(', ')}`,
  );
  const model = models.find((m) => String(m.model).endsWith(IMAGE_MODEL_SUFFIX) && m.schema === true);
  if (!model) throw new Error(`no *${IMAGE_MODEL_SUFFIX} model in the sandbox catalog`);
  const detail = await readJson(agent, `genplat://models/${model.model}`);
  const schema = (detail.params_schema ?? {}) as { required?: string[] };
  out(`genplat://models/${model.model}: ${detail.notes} Required params: ${(schema.required ?? []).join(', ')}`);
  const image = await sandboxImage(agent);
  const job = await agent.createWithConsent('run_model', {
    model: model.model,
    params: { prompt: 'Place this person on a sunny beach, holding a steel thermos', image_urls: [image] },
  });
  started.push({ what: 'run_model image', handle: job.handle as string });
}

/** Text for a template field: something plausible, cut to the field's max length. */
function fieldText(type: string, max: number | undefined): string {
  const text = type === 'textarea' ? 'Keeps coffee hot for twelve hours, tea cold for a day.' : 'Steel thermos';
  return max === undefined ? text : text.slice(0, max);
}

/** A content-library template: list, pick one, fill its fields (images with a sandbox URL), create with consent. */
async function templateVideo(agent: Agent): Promise<void> {
  step('Create a template video (billable)');
  type Field = { type: string; label?: string; max?: number };
  const templates = (await agent.call('list_templates', { category: 'ecommerce' })).sc.templates as {
    id: string;
    title: string;
    credit: string;
    fields: Record<string, Field>;
  }[];
  out(`list_templates(ecommerce): ${templates.map((t) => `"${t.title}" (${t.credit} credits)`).join(', ')}`);
  const template = templates[0];
  if (!template) throw new Error('no ecommerce template in the sandbox');
  const describe = (f: Field) => `${f.type}${f.max === undefined ? '' : ` ≤ ${f.max}`}`;
  out(
    `chosen "${template.title}"; fields: ${Object.entries(template.fields)
      .map(([name, f]) => `${name} (${describe(f)})`)
      .join(', ')}`,
  );
  const image = await sandboxImage(agent);
  const fields = Object.fromEntries(
    Object.entries(template.fields).map(([name, f]) => [name, f.type === 'image' ? image : fieldText(f.type, f.max)]),
  );
  const job = await agent.createWithConsent('create_template_video', { template_id: template.id, fields });
  started.push({ what: 'template video', handle: job.handle as string });
}

/** One wait_for_jobs for everything started above: the jobs run concurrently, so the demo waits once. */
async function waitStarted(agent: Agent): Promise<void> {
  step(`Wait for the ${started.length} jobs together`);
  const jobs = await agent.waitAll(started.map((s) => s.handle));
  for (const [i, job] of jobs.entries()) {
    const outputs = (job.outputs ?? []) as { url: string; media: string }[];
    const shown = outputs.map((o) => `${o.media} ${o.url}`).join(', ') || String(job.reason ?? 'no output');
    out(`server ← ${job.status} (${started[i]?.what}): ${shown}`);
  }
}

/** What was spent: list_jobs and the genplat://spend resource. */
async function spend(agent: Agent): Promise<void> {
  step('Jobs and spend');
  const listed = (await agent.call('list_jobs', { limit: 5 })).sc;
  for (const j of listed.jobs as Json[]) out(`list_jobs: ${j.handle}  ${j.status}  ${j.summary}`);
  const res = await agent.client.readResource({ uri: 'genplat://spend' });
  const first = res.contents[0];
  const text = first && 'text' in first ? String(first.text) : '{}';
  const s = JSON.parse(text) as Json;
  out(
    `genplat://spend: ${s.today_credits} credits today of ${s.max_credits_per_day} per day (${s.remaining_today} left); ${s.confirmation}`,
  );
}

/**
 * Run in order. `modelImage` and `templateVideo` only start their jobs; `waitStarted` waits for both in one
 * wait_for_jobs, so the demo pays one job duration (~8-15 s in demo timing) for the two, not two.
 */
/** A small campaign (issue 21): 2 avatars × 2 voices, one quote and one consent, 4 POSTs, one handle. */
async function campaign(agent: Agent): Promise<void> {
  step('Browse the catalog');
  const avatars = (await agent.call('list_avatars')).sc.avatars as { id: string; name: string }[];
  const voices = (await agent.call('list_voices', { language: 'English' })).sc.voices as { id: string }[];
  const vary = { avatar_id: avatars.slice(0, 2).map((a) => a.id), voice_id: voices.slice(0, 2).map((v) => v.id) };
  out(`variants: avatars ${vary.avatar_id.join(', ')} × voices ${vary.voice_id.join(', ')}`);

  step('Create a campaign (billable: one quote, one consent for every variant)');
  const started = await agent.createWithConsent('create_campaign', {
    items: [
      {
        tool: 'create_talking_video',
        arguments: { avatar_id: vary.avatar_id[0], voice_script: 'Hot coffee, all day long. Grab yours today!' },
      },
    ],
    vary,
  });

  step('Wait for the campaign');
  const [done] = await agent.waitAll([started.handle as string]);
  const view = (done?.details as { campaign?: Json } | undefined)?.campaign as
    | { progress: string; items: { index: number; varied: Json; status: string; quote: number; charged?: number }[] }
    | undefined;
  out(`server ← ${done?.status}: ${view?.progress}`);
  for (const i of view?.items ?? []) {
    out(`  item ${i.index} ${JSON.stringify(i.varied)}: ${i.status}, quoted ${i.quote}, charged ${i.charged ?? '—'}`);
  }
}

/** One second of 16-bit mono silence at 8 kHz: a real WAV (RIFF header + PCM), 16,044 bytes. */
function silentWav(seconds = 1, rate = 8000): Buffer {
  const data = seconds * rate * 2;
  const b = Buffer.alloc(44 + data);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + data, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16); // fmt chunk size
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28); // byte rate
  b.writeUInt16LE(2, 32); // block align
  b.writeUInt16LE(16, 34); // bits per sample
  b.write('data', 36);
  b.writeUInt32LE(data, 40);
  return b;
}

/** The folder `npm run demo:files` lets the server read (GENPLAT_INPUT_DIRS), made in `main`. */
let inputDir = '';

/**
 * `npm run demo:files` (issue 29 item 7): a talking video whose voice is a local WAV, in the sandbox with no
 * bucket. The server checks the file (folder, type from its bytes, size, hash), quotes, and at send time stages
 * it on its own loopback listener; the sandbox's simulator fetches it from there, as the platform would.
 */
async function localFile(agent: Agent): Promise<void> {
  step('A local WAV as the voice (no bucket, no public URL)');
  const wav = join(inputDir, 'voice.wav');
  writeFileSync(wav, silentWav());
  out(`wrote ${wav} (a real WAV, 1 s); GENPLAT_INPUT_DIRS=${inputDir}`);
  const avatars = (await agent.call('list_avatars')).sc.avatars as { id: string; name: string }[];
  const avatar = avatars[0];
  if (!avatar) throw new Error('no avatar in the sandbox');
  const started = await agent.createWithConsent('create_talking_video', {
    avatar_id: avatar.id,
    video_name: 'Demo: my own voice',
    voice_script: 'My own recording, read from a file on this machine.',
    voice_url: wav,
  });

  step('Wait for the job');
  const [job] = await agent.waitAll([started.handle as string]);
  const outputs = (job?.outputs ?? []) as { url: string; media: string }[];
  out(`server ← ${job?.status}: ${outputs.map((o) => `${o.media} ${o.url}`).join(', ') || String(job?.reason ?? '')}`);
  if (job?.status !== 'completed') throw new Error(`the local-file job ended ${String(job?.status)}`);
}

/**
 * `npm run demo:campaign` passes `campaign`, `npm run demo:files` passes `files`: that scenario alone (plus the
 * spend it leaves).
 */
const MODE = process.argv[2];
const SCENARIOS: ((agent: Agent) => Promise<void>)[] =
  MODE === 'campaign'
    ? [campaign, spend]
    : MODE === 'files'
      ? [localFile, spend]
      : [talkingVideo, modelImage, templateVideo, waitStarted, spend];

async function main(): Promise<void> {
  const started = Date.now();
  // A fresh state dir: the demo's jobs and spend never mix with a real ledger.
  const stateDir = mkdtempSync(join(tmpdir(), 'genplat-demo-'));
  // demo:files: the folder the server may read local files from (the demo's client declares no MCP roots).
  inputDir = join(stateDir, 'inputs');
  mkdirSync(inputDir);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [ENTRY, '--sandbox'],
    env: { GENPLAT_STATE_DIR: stateDir, GENPLAT_LOG_LEVEL: 'warn', GENPLAT_INPUT_DIRS: inputDir },
    stderr: 'inherit',
  });
  // No elicitation capability: the confirmation goes through the token, as in most hosts today.
  const client = new Client({ name: 'genplat-demo', version: '0.1.0' }, { capabilities: {} });
  try {
    out('genplat-mcp demo: sandbox simulator, real MCP client over stdio');
    await client.connect(transport);
    out(`connected to ${client.getServerVersion()?.name} ${client.getServerVersion()?.version}`);
    out('server instructions:');
    for (const l of (client.getInstructions() ?? '').split('\n')) out(`  | ${l}`);
    const agent = makeAgent(client);
    for (const scenario of SCENARIOS) await scenario(agent);
    out(`\ndone in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await client.close().catch(() => {});
    rmSync(stateDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
