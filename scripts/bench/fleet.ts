/**
 * The fleet run of issue 10: 3 built servers (dist/src/index.js) on ONE PostgreSQL database against ONE
 * simulator, whose request log is the referee.
 * 1. `calls` distinct paid calls (create_talking_video, each its own script) spread round-robin over the
 *    processes, `inFlight` at a time → POSTs seen by the platform (must equal `calls`) and double POSTs (the
 *    same body sent twice; must be 0).
 * 2. On a fresh database, a per-day ceiling of N jobs' worth and 4 N distinct calls at once → POSTs (must be
 *    exactly N: the ceiling is decided inside `store.admit`, so no two processes can both pass it).
 * Bounded: every call is a 20 ms simulated job; the whole run takes seconds, not minutes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { TALKING_VIDEO_CREDITS } from '../../src/paid/pricing/estimate.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { serverEnv } from './cold-start.js';
import { createBenchDatabase } from './pg-database.js';
import { OUR_ENTRY, percentile, round, type Spawned, spawnStdio } from './stdio.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;

export interface FleetResult {
  processes: number;
  calls: number;
  posts: number;
  doublePosts: number;
  submitted: number;
  wallS: number;
  callMs: { p50: number; p95: number };
  ceiling: { jobs: number; calls: number; posts: number; submitted: number };
}

async function startFleet(
  sim: Simulator,
  processes: number,
  databaseUrl: string,
  base: string,
  extra: Record<string, string> = {},
): Promise<Spawned[]> {
  const env = (i: number) =>
    serverEnv(sim, join(base, `p${i}`), { GENPLAT_DATABASE_URL: databaseUrl, GENPLAT_CONFIRM: 'never', ...extra });
  // The first one creates the schema; the rest open it (as the fleet test does).
  const first = await spawnStdio(OUR_ENTRY, env(0));
  const rest = await Promise.all(Array.from({ length: processes - 1 }, (_, i) => spawnStdio(OUR_ENTRY, env(i + 1))));
  return [first, ...rest];
}

const call = (s: Spawned, voiceScript: string) =>
  s.client.callTool({
    name: 'create_talking_video',
    arguments: { avatar_id: 'av_marcus', voice_script: voiceScript },
  }) as Promise<CallToolResult>;
const submitted = (r: CallToolResult) =>
  !r.isError && (r.structuredContent as { status?: unknown } | undefined)?.status === 'submitted';

/** Runs `n` tasks with at most `limit` in flight. */
async function pool<T>(n: number, limit: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

function postsSince(sim: Simulator, from: number): { posts: number; doubles: number } {
  const bodies = sim.log
    .entries()
    .slice(from)
    .filter((e) => e.method === POSTS.method && e.path.endsWith(POSTS.path))
    .map((e) => JSON.stringify(e.body));
  return { posts: bodies.length, doubles: bodies.length - new Set(bodies).size };
}

export async function fleet(o: {
  processes: number;
  calls: number;
  inFlight: number;
  ceilingJobs: number;
}): Promise<FleetResult | { skipped: string }> {
  const base = await mkdtemp(join(tmpdir(), 'genplat-bench-fleet-'));
  const sim = await startSimulator({ timing: 'test', startingCredits: 1_000_000_000 });
  const dbs: { drop(): Promise<void> }[] = [];
  let servers: Spawned[] = [];
  try {
    let db: Awaited<ReturnType<typeof createBenchDatabase>>;
    try {
      db = await createBenchDatabase();
    } catch (err) {
      return { skipped: `no PostgreSQL server: ${(err as Error).message}` };
    }
    dbs.push(db);
    // Ceilings out of the way for the throughput run (the defaults allow 100 videos a day).
    servers = await startFleet(sim, o.processes, db.url, join(base, 'run'), {
      GENPLAT_MAX_CREDITS_PER_DAY: String(o.calls * TALKING_VIDEO_CREDITS * 2),
    });
    const from = sim.log.entries().length;
    const times: number[] = [];
    const t0 = performance.now();
    const results = await pool(o.calls, o.inFlight, async (i) => {
      const s0 = performance.now();
      const r = await call(servers[i % servers.length]!, `Fleet bench call number ${i}.`);
      times.push(performance.now() - s0);
      return r;
    });
    const wallS = round((performance.now() - t0) / 1000, 1);
    const run = postsSince(sim, from);
    await Promise.all(servers.map((s) => s.close()));
    servers = [];

    const ceilingDb = await createBenchDatabase();
    dbs.push(ceilingDb);
    servers = await startFleet(sim, o.processes, ceilingDb.url, join(base, 'ceiling'), {
      GENPLAT_MAX_CREDITS_PER_CALL: String(TALKING_VIDEO_CREDITS),
      GENPLAT_MAX_CREDITS_PER_DAY: String(o.ceilingJobs * TALKING_VIDEO_CREDITS),
    });
    const ceilingCalls = 4 * o.ceilingJobs;
    const cFrom = sim.log.entries().length;
    const cResults = await Promise.all(
      Array.from({ length: ceilingCalls }, (_, i) => call(servers[i % servers.length]!, `Ceiling bench take ${i}.`)),
    );
    const ceiling = postsSince(sim, cFrom);

    return {
      processes: o.processes,
      calls: o.calls,
      posts: run.posts,
      doublePosts: run.doubles,
      submitted: results.filter(submitted).length,
      wallS,
      callMs: { p50: round(percentile(times, 50)), p95: round(percentile(times, 95)) },
      ceiling: {
        jobs: o.ceilingJobs,
        calls: ceilingCalls,
        posts: ceiling.posts,
        submitted: cResults.filter(submitted).length,
      },
    };
  } finally {
    await Promise.allSettled(servers.map((s) => s.close()));
    for (const db of dbs) await db.drop().catch(() => {});
    await sim.close();
    await rm(base, { recursive: true, force: true });
  }
}
