#!/usr/bin/env node
/**
 * Smoke of the 2026-07-28 protocol era against the built server, as an external client: neither the
 * conformance suite's fixtures nor Inspector CLI 1.0.3 (an SDK v1 client, 2025 era only) can drive our own
 * tools on this era, so this script does, with the SDK v2 `Client` pinned to 2026-07-28 (`server/discover`).
 *
 * Over stdio (`node dist/src/index.js --sandbox`) and over Streamable HTTP (`--http`, bearer token), each:
 * tools/list (count = the reviewed snapshot), resources/list, resources/templates/list, prompts/list, one
 * resources/read, one completion of a prompt argument, then the paid flow in the sandbox:
 *   list_avatars + list_voices → create_talking_video (quote + confirmation token, client without elicitation)
 *   → the same call with the token (one job) → wait_for_jobs until completed;
 * and the 2026 consent carrier: a client that declares form elicitation gets `input_required`, answers it
 * (the SDK client retries with the signed requestState), one job; then the same round with the requestState
 * forged, which must be refused with no job started.
 *
 *   node_modules/.bin/node scripts/ci/modern-smoke.mjs [stdio|http]   (after `npm run build`; exit 1 with a reason on failure)
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const ROOT = resolve(import.meta.dirname, '../..');
const ENTRY = join(ROOT, 'dist/src/index.js');
const ERA = '2026-07-28';
// As an MCP Apps host sees it; this client declares no Apps, so the App-only Confirm button is not listed to it.
const SNAPSHOT = JSON.parse(readFileSync(join(ROOT, 'test/contract/__snapshots__/tools-list.json'), 'utf8')).filter(
  (t) => t.name !== 'confirm_paid_call',
);
// The sandbox's 'demo' timing finishes a talking video in seconds; 120 s is a hung server, not a slow one.
const JOB_DEADLINE_MS = 120_000;

const work = mkdtempSync(join(tmpdir(), 'genplat-modern-smoke-'));
const children = [];
const say = (line) => console.error(`modern-smoke ${line}`);
function check(ok, what, detail) {
  if (!ok) throw new Error(`${what}${detail === undefined ? '' : `: ${JSON.stringify(detail).slice(0, 400)}`}`);
}
const sc = (r) => r.structuredContent ?? {};

/** A v2 client pinned to 2026-07-28; `onElicit` declares form elicitation and answers with it. */
async function connect(transport, { onElicit, manual } = {}) {
  const client = new Client(
    { name: 'genplat-ci-modern-smoke', version: '0.0.0' },
    {
      capabilities: onElicit ? { elicitation: { form: {} } } : {},
      versionNegotiation: { mode: { pin: ERA } },
      ...(manual ? { inputRequired: { autoFulfill: false } } : {}),
    },
  );
  if (onElicit) client.setRequestHandler('elicitation/create', onElicit);
  await client.connect(transport);
  check(client.getNegotiatedProtocolVersion() === ERA, 'negotiated era', client.getNegotiatedProtocolVersion());
  return client;
}

async function call(client, name, args, opts) {
  const r = await client.callTool({ name, arguments: args }, opts);
  check(!r.isError, `${name} is an error`, r.content);
  return r;
}

/** The free surface: lists, a read and a completion. */
async function browse(label, client) {
  const tools = (await client.listTools()).tools.map((t) => t.name);
  // A tool is listed only on the transport it works on (the snapshot's `only`: src/tool-visibility.ts).
  const want = SNAPSHOT.filter((t) => t.only === undefined || t.only === label);
  check(tools.length === want.length && tools.includes('wait_for_jobs'), 'tools/list', tools);
  const resources = (await client.listResources()).resources.map((r) => r.uri);
  check(resources.includes('genplat://avatars'), 'resources/list', resources);
  const templates = (await client.listResourceTemplates()).resourceTemplates.length;
  const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
  check(prompts.includes('ugc_talking_video'), 'prompts/list', prompts);
  const read = await client.readResource({ uri: 'genplat://avatars' });
  const c = read.contents[0];
  check(c?.uri === 'genplat://avatars' && JSON.parse(c.text) !== null, 'resources/read', read);
  const done = await client.complete({
    ref: { type: 'ref/prompt', name: 'ugc_talking_video' },
    argument: { name: 'language', value: 'en' },
  });
  const values = done.completion.values;
  check(values.length > 0 && values.every((v) => v.toLowerCase().startsWith('en')), 'completion/complete', values);
  say(
    `(${label}): ${tools.length} tools, ${resources.length} resources, ${templates} templates, ` +
      `${prompts.length} prompts; read ${c.text.length} chars; completed language "en" -> ${values.join(', ')}`,
  );
}

/** wait_for_jobs until the job is terminal; it must be completed with an output. */
async function waitCompleted(client, handle) {
  const deadline = Date.now() + JOB_DEADLINE_MS;
  for (;;) {
    const r = await call(client, 'wait_for_jobs', { handles: [handle], max_wait_s: 20 }, { timeout: 60_000 });
    const job = sc(r).jobs?.[0];
    if (sc(r).done) {
      check(job?.status === 'completed' && (job.outputs?.length ?? 0) > 0, 'job completed with outputs', job);
      return job;
    }
    check(Date.now() < deadline, `job not finished after ${JOB_DEADLINE_MS} ms`, job);
  }
}

async function pickInputs(client) {
  const avatar = sc(await call(client, 'list_avatars', {})).avatars?.[0]?.id;
  const voice = sc(await call(client, 'list_voices', {})).voices?.[0]?.id;
  check(typeof avatar === 'string' && typeof voice === 'string', 'an avatar and a voice', { avatar, voice });
  return { avatar_id: avatar, voice_id: voice };
}

/** list → quote → confirm (token) → wait, on a client without elicitation. */
async function tokenFlow(label, client) {
  const args = { ...(await pickInputs(client)), voice_script: `Modern smoke, token flow over ${label}.` };
  const quote = sc(await call(client, 'create_talking_video', args));
  check(quote.status === 'confirmation_required' && typeof quote.confirmation_token === 'string', 'quote', quote);
  const sent = sc(
    await call(client, 'create_talking_video', { ...args, confirmation_token: quote.confirmation_token }),
  );
  check(sent.status === 'submitted' && typeof sent.handle === 'string', 'confirmed call', sent);
  const job = await waitCompleted(client, sent.handle);
  say(`(${label}): token flow: quoted ${quote.estimate?.credits} credits, ${sent.handle} -> ${job.status}`);
}

/** The input_required carrier: the client's form handler is asked once and the call starts one job. */
async function formFlow(label, transport) {
  let asked = 0;
  const client = await connect(transport, {
    onElicit: async () => {
      asked++;
      return { action: 'accept', content: { confirm: true } };
    },
  });
  try {
    const args = { ...(await pickInputs(client)), voice_script: `Modern smoke, input_required over ${label}.` };
    const sent = sc(await call(client, 'create_talking_video', args));
    check(asked === 1 && sent.status === 'submitted' && typeof sent.handle === 'string', 'input_required', {
      asked,
      sent,
    });
    const job = await waitCompleted(client, sent.handle);
    say(`(${label}): input_required flow: form answered once, ${sent.handle} -> ${job.status}`);
  } finally {
    await client.close();
  }
}

/** The same round with the signed requestState altered: refused before the handler, no job. */
async function forgedState(label, transport) {
  const client = await connect(transport, { onElicit: async () => ({ action: 'accept', content: {} }), manual: true });
  try {
    const args = { ...(await pickInputs(client)), voice_script: `Modern smoke, forged state over ${label}.` };
    const jobsBefore = sc(await call(client, 'list_jobs', {})).jobs?.length;
    const first = await client.callTool(
      { name: 'create_talking_video', arguments: args },
      { allowInputRequired: true },
    );
    check(first.resultType === 'input_required' && typeof first.requestState === 'string', 'input_required', first);
    const [key] = Object.keys(first.inputRequests ?? {});
    // Flip one character of the MAC-protected state: any instance must refuse it.
    const s = first.requestState;
    const forged = `${s.slice(0, -2)}${s.at(-2) === 'A' ? 'B' : 'A'}${s.at(-1)}`;
    let refused = '';
    try {
      const r = await client.callTool({
        name: 'create_talking_video',
        arguments: args,
        inputResponses: { [key]: { action: 'accept', content: { confirm: true } } },
        requestState: forged,
      });
      if (r.isError) refused = JSON.stringify(r.content).slice(0, 120);
      else check(false, 'a forged requestState was accepted', sc(r));
    } catch (err) {
      refused = String(err?.message ?? err).slice(0, 120);
    }
    const jobsAfter = sc(await call(client, 'list_jobs', {})).jobs?.length;
    check(jobsAfter === jobsBefore, 'no job after a forged requestState', { jobsBefore, jobsAfter });
    say(`(${label}): forged requestState refused (${refused}); jobs ${jobsBefore} -> ${jobsAfter}`);
  } finally {
    await client.close();
  }
}

function env(extra) {
  // CONFIRM=always: every paid call asks, so the quote and the form are exercised whatever the price.
  return { PATH: process.env.PATH ?? '', GENPLAT_CONFIRM: 'always', ...extra };
}

function stdioTransport(state) {
  return new StdioClientTransport({
    command: process.execPath,
    args: [ENTRY, '--sandbox'],
    env: env({ GENPLAT_STATE_DIR: join(work, state) }),
    stderr: 'ignore',
  });
}

async function overStdio() {
  const started = performance.now();
  // One server process per stdio connection: each client gets its own state dir (and simulator).
  const client = await connect(stdioTransport('stdio-token'));
  try {
    await browse('stdio', client);
    await tokenFlow('stdio', client);
  } finally {
    await client.close();
  }
  await formFlow('stdio', stdioTransport('stdio-form'));
  await forgedState('stdio', stdioTransport('stdio-forged'));
  say(`(stdio): OK in ${Math.round(performance.now() - started)} ms`);
}

async function startHttp(token) {
  const child = spawn(process.execPath, [ENTRY, '--sandbox', '--http', '--port', '0'], {
    env: env({ GENPLAT_STATE_DIR: join(work, 'http'), GENPLAT_HTTP_TOKEN: token }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let log = '';
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`HTTP server did not start:\n${log}`)), 30_000);
    child.stderr.on('data', (d) => {
      log += d;
      const m = /ready on (http:\S+\/mcp)/.exec(log);
      if (m) {
        clearTimeout(timer);
        ok(new URL(m[1]));
      }
    });
    child.once('exit', (code) => fail(new Error(`HTTP server exited (${code}):\n${log}`)));
  });
}

async function overHttp() {
  const started = performance.now();
  const token = randomBytes(24).toString('hex');
  const url = await startHttp(token);
  const transport = () =>
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = await connect(transport());
  try {
    await browse('http', client);
    await tokenFlow('http', client);
  } finally {
    await client.close();
  }
  await formFlow('http', transport());
  await forgedState('http', transport());
  say(`(http): OK in ${Math.round(performance.now() - started)} ms`);
}

// `stdio` or `http` as the argument runs one transport only (both by default).
const only = process.argv[2];
try {
  if (only !== 'http') await overStdio();
  if (only !== 'stdio') await overHttp();
  say('OK');
} catch (err) {
  say(`FAILED: ${err?.stack ?? err}`);
  process.exitCode = 1;
} finally {
  for (const c of children) c.kill();
  rmSync(work, { recursive: true, force: true });
}
