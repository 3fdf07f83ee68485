/**
 * Webhooks vs polling (issue 11 item 5): `jobs` paid talking videos of varied length created through the HTTP
 * server, then `waiters` concurrent wait_for_jobs loops, as in waiting.ts, once with webhooks on and once off,
 * each on a fresh simulator and state dir, with the production poll interval (5-10 s, spec "Limits").
 *
 * The server runs in this process (`startHttpRuntime`, the `loopbackWebhooks` test hook standing in for
 * GENPLAT_PUBLIC_URL), so one clock serves the simulator, whose callback comes `callbackDelayMs` after a job
 * finishes, and the waiters. Completion lag = the wait_for_jobs answer reporting a job − the job's finish.
 * With webhooks on the lag should fall to about the callback delay; polling leaves it at up to one interval.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { loadConfig, parseCli } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startSimulator } from '../../src/sim/index.js';
import { startHttpRuntime } from '../../src/transports/http-main.js';
import { percentile, round } from './stdio.js';

const TOKEN = 'bench-token-0123456789abcdef';

export interface LagRun {
  lagS: { p50: number; p95: number; max: number };
  /** Status reads per job seen by the simulator. */
  readsPerJob: { mean: number; max: number };
  /** Jobs a wait_for_jobs answer reported settled (must equal the job count). */
  jobsReported: number;
  wallS: number;
}

export interface WebhooksResult {
  jobs: number;
  waiters: number;
  durationS: { min: number; max: number };
  callbackDelayMs: number;
  webhooks: LagRun;
  polling: LagRun;
}

interface WaitAnswer {
  jobs: { handle: string; status: string }[];
  pending: string[];
}

async function once(
  webhooks: boolean,
  opts: { jobs: number; waiters: number; minS: number; maxS: number; callbackDelayMs: number; random: () => number },
): Promise<LagRun> {
  const sim = await startSimulator({
    timing: 'test',
    startingCredits: 1_000_000_000,
    allowLoopbackWebhooks: true,
    webhookDelayMs: opts.callbackDelayMs,
  });
  const stateDir = await mkdtemp(join(tmpdir(), 'genplat-bench-hooks-'));
  const base = loadConfig(parseCli(['--http', '--port', '0']), {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: stateDir,
    GENPLAT_HTTP_TOKEN: TOKEN,
    GENPLAT_CONFIRM: 'never',
    // Room for every bench job within the day's ceiling (100 credits each).
    GENPLAT_MAX_CREDITS_PER_DAY: String(1000 * opts.jobs),
  });
  const rt = await startHttpRuntime(
    { ...base, vendors: sim.vendors, logLevel: 'error' },
    createLogger('error', () => {}),
    {
      loopbackWebhooks: webhooks,
    },
  );
  const client = new Client({ name: 'bench-hooks', version: '0' }, { capabilities: {} });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(rt.http.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    await client.listTools();
    const span = opts.maxS - opts.minS;
    const handles: string[] = [];
    for (let i = 0; i < opts.jobs; i++) {
      sim.jobs.scriptNext({ durationMs: Math.round((opts.minS + opts.random() * span) * 1000) });
      const r = await client.callTool({
        name: 'create_talking_video',
        arguments: { avatar_id: 'av_marcus', voice_script: `bench hook job ${i}` },
      });
      const handle = (r.structuredContent as { handle?: string } | undefined)?.handle;
      if (r.isError || !handle) throw new Error(`bench job refused: ${JSON.stringify(r.content)}`);
      handles.push(handle);
    }
    const finishAt = new Map(sim.jobs.all().map((j) => [`actor_video:${j.id}`, j.finishAt]));
    sim.log.clear();
    const reportedAt = new Map<string, number>();
    const started = Date.now();
    const share = Math.ceil(handles.length / opts.waiters);
    await Promise.all(
      Array.from({ length: opts.waiters }, async (_, w) => {
        let pending = handles.slice(w * share, (w + 1) * share);
        while (pending.length > 0) {
          const r = await client.callTool(
            { name: 'wait_for_jobs', arguments: { handles: pending, until: 'any', max_wait_s: 50 } },
            { timeout: 70_000 },
          );
          const answer = r.structuredContent as unknown as WaitAnswer | undefined;
          if (!answer) throw new Error(`wait_for_jobs gave no structured answer: ${JSON.stringify(r.content)}`);
          const now = Date.now();
          for (const j of answer.jobs)
            if (j.status !== 'processing' && !reportedAt.has(j.handle)) reportedAt.set(j.handle, now);
          pending = answer.pending;
        }
      }),
    );
    const wallS = (Date.now() - started) / 1000;
    const lags = handles.map((h) => ((reportedAt.get(h) ?? Number.NaN) - (finishAt.get(h) ?? Number.NaN)) / 1000);
    const reads = new Map<string, number>();
    for (const e of sim.log.entries())
      if (e.method === 'GET' && e.path === '/video/status')
        reads.set(e.query.id ?? '', (reads.get(e.query.id ?? '') ?? 0) + 1);
    const counts = [...reads.values()];
    return {
      lagS: { p50: round(percentile(lags, 50)), p95: round(percentile(lags, 95)), max: round(Math.max(...lags)) },
      readsPerJob: {
        mean: round(counts.reduce((a, b) => a + b, 0) / Math.max(1, handles.length)),
        max: Math.max(0, ...counts),
      },
      jobsReported: reportedAt.size,
      wallS: round(wallS, 1),
    };
  } finally {
    await client.close().catch(() => {});
    await rt.close();
    await sim.close();
    await rm(stateDir, { recursive: true, force: true });
  }
}

/** Both modes with the same job lengths (the generator is re-seeded per run by `random()`). */
export async function webhookLag(opts: {
  jobs: number;
  waiters: number;
  minS: number;
  maxS: number;
  callbackDelayMs: number;
  random: () => () => number;
}): Promise<WebhooksResult> {
  const webhooks = await once(true, { ...opts, random: opts.random() });
  const polling = await once(false, { ...opts, random: opts.random() });
  return {
    jobs: opts.jobs,
    waiters: opts.waiters,
    durationS: { min: opts.minS, max: opts.maxS },
    callbackDelayMs: opts.callbackDelayMs,
    webhooks,
    polling,
  };
}
