/**
 * Tool-call overhead: `get_job` through MCP (stdio, the built server) against the same status GET sent
 * straight to the simulator, calls interleaved one by one.
 *
 * Which path: every get_job here names a job the server has never read, so each call does the full
 * work — JSON-RPC over stdio, input validation, the ledger lookup, the poller, one GET through the
 * platform client (queue, timeout, response schema) — and the direct call is that one GET with fetch.
 * (A second get_job of the same job within the poll interval, or of a finished job, answers from the
 * poller's cache with no GET at all; that path is measured separately as `cached`.) The minimal SDK
 * server's `echo` call gives the protocol floor the MCP path cannot go below.
 */
import type { Simulator } from '../../src/sim/index.js';
import { MINIMAL_ENTRY, percentile, round, type Spawned, spawnStdio } from './stdio.js';

export interface Latency {
  p50: number;
  p95: number;
}

export interface ToolCallResult {
  calls: number;
  /** get_job of a job never read before: one status GET per call. */
  getJobFresh: Latency;
  /** The same GET straight to the simulator with fetch. */
  directGet: Latency;
  /** get_job of a finished job already read: answered from the poller cache, no GET. */
  getJobCached: Latency;
  /** tools/call `echo` on the minimal SDK server: JSON-RPC over stdio and nothing else. */
  minimalEcho: Latency;
  overheadMs: { p50: number; p95: number };
  ratio: { p50: number; p95: number };
  /** Status GETs the simulator saw per measured call of each get_job path (checks which path ran). */
  getsPerCall: { fresh: number; cached: number };
}

const lat = (xs: number[]): Latency => ({ p50: round(percentile(xs, 50), 3), p95: round(percentile(xs, 95), 3) });

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Creates `n` talking-video jobs straight on the simulator (as if started elsewhere); returns their ids. */
export async function createJobs(sim: Simulator, n: number, durationMs?: (i: number) => number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    if (durationMs) sim.jobs.scriptNext({ durationMs: durationMs(i) });
    const res = await fetch(`${sim.baseUrl}/video/generate`, {
      method: 'POST',
      headers: { 'x-api-key': sim.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ avatar_id: 'av_marcus', voice_script: `bench job ${i}` }),
    });
    const body = (await res.json()) as { data?: { id?: string } };
    const id = body.data?.id;
    if (!res.ok || typeof id !== 'string')
      throw new Error(`sim refused a bench job: ${res.status} ${JSON.stringify(body)}`);
    ids.push(id);
  }
  return ids;
}

export async function toolCall(sim: Simulator, server: Spawned, calls: number): Promise<ToolCallResult> {
  const warm = 20;
  const ids = await createJobs(sim, 2 * (calls + warm));
  const direct = async (id: string) => {
    const res = await fetch(`${sim.baseUrl}/video/status?id=${encodeURIComponent(id)}`, {
      headers: { 'x-api-key': sim.apiKey, accept: 'application/json' },
    });
    await res.json();
  };
  const getJob = async (id: string) => {
    const r = await server.client.callTool({ name: 'get_job', arguments: { handle: `actor_video:${id}` } });
    if (r.isError) throw new Error(`get_job failed: ${JSON.stringify(r.content)}`);
  };
  const minimal = await spawnStdio(MINIMAL_ENTRY, {});
  const echo = () => minimal.client.callTool({ name: 'echo', arguments: { text: 'ping' } });

  const gets = () => sim.log.count({ method: 'GET', path: '/video/status' });
  const fresh: number[] = [];
  const straight: number[] = [];
  const cached: number[] = [];
  const floor: number[] = [];
  let freshGets = 0;
  let cachedGets = 0;
  try {
    for (let i = 0; i < warm; i++) {
      await getJob(ids[i] as string);
      await direct(ids[warm + i] as string);
      await echo();
    }
    for (let i = 0; i < calls; i++) {
      const a = ids[2 * warm + 2 * i] as string;
      const b = ids[2 * warm + 2 * i + 1] as string;
      let before = gets();
      fresh.push(await timed(() => getJob(a)));
      freshGets += gets() - before;
      straight.push(await timed(() => direct(b)));
      // `a` is finished (sim jobs here take 20 ms) and was just read: the poller answers from its cache.
      before = gets();
      cached.push(await timed(() => getJob(a)));
      cachedGets += gets() - before;
      floor.push(await timed(echo));
    }
  } finally {
    await minimal.close();
  }
  const f = lat(fresh);
  const d = lat(straight);
  return {
    calls,
    getJobFresh: f,
    directGet: d,
    getJobCached: lat(cached),
    minimalEcho: lat(floor),
    overheadMs: { p50: round(f.p50 - d.p50, 3), p95: round(f.p95 - d.p95, 3) },
    ratio: { p50: round(f.p50 / d.p50), p95: round(f.p95 / d.p95) },
    getsPerCall: { fresh: round(freshGets / calls), cached: round(cachedGets / calls) },
  };
}
