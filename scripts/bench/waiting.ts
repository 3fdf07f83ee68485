/**
 * Waiting at scale: `jobs` simulated talking-video jobs of varied length, followed by `waiters` concurrent
 * wait_for_jobs loops (an equal share of handles each, `until: 'any'`, re-waiting with the returned
 * pending handles until none is left), through the built server on stdio with its production poll
 * interval (5-10 s, spec "Limits").
 *
 * Measured from the simulator's request log and clock (the bench process hosts the simulator, so one
 * clock serves both sides):
 * - status requests per job against the 5 s rule's reference count: a poller reading a job every 5 s
 *   exactly (the fastest the spec allows) from its first read at `f`, for a job that finishes at `e`,
 *   reads at f, f+5 s, … until the first read at or after e, that is
 *   reference = 1 + ceil(max(0, e − f) / 5 s).
 *   A poller that reads slower makes fewer requests (and sees the finish later: see lag), so the target
 *   is "never more than reference + 1";
 * - duplicate polls: two reads of one job less than 5 s apart (must be 0);
 * - completion lag: from the simulator finishing the job to the wait_for_jobs answer reporting it, and
 *   the detection part of it (to the first status read after the finish);
 * - the server's RSS growth over the run (sampled VmRSS, and VmHWM).
 */
import type { Simulator } from '../../src/sim/index.js';
import { memory, percentile, round, type Spawned } from './stdio.js';
import { createJobs } from './tool-call.js';

const RULE_MS = 5_000;

export interface WaitingResult {
  jobs: number;
  waiters: number;
  durationS: { min: number; max: number };
  wallS: number;
  waitCalls: number;
  requestsPerJob: { mean: number; max: number };
  /** The 5 s-cadence reference count (see above), mean over jobs. */
  referencePerJob: { mean: number };
  /** Jobs read more than reference + 1 times. */
  overReferencePlusOne: number;
  /** Largest reads − reference over jobs (negative: every job was read less often than at a 5 s cadence). */
  maxExcessOverReference: number;
  duplicatePolls: number;
  /** Smallest gap between two reads of one job, ms. */
  minGapMs: number;
  lagS: { p50: number; p95: number; max: number };
  detectLagS: { p50: number; p95: number; max: number };
  rssMiB: { before: number; maxDuring: number; growth: number; peakBefore: number; peakAfter: number };
}

interface WaitAnswer {
  jobs: { handle: string; status: string }[];
  pending: string[];
}

export async function waiting(
  sim: Simulator,
  server: Spawned,
  opts: { jobs: number; waiters: number; minS: number; maxS: number; random?: () => number },
): Promise<WaitingResult> {
  const random = opts.random ?? Math.random;
  const span = opts.maxS - opts.minS;
  const ids = await createJobs(sim, opts.jobs, () => Math.round((opts.minS + random() * span) * 1000));
  const finishAt = new Map(sim.jobs.all().map((j) => [j.id, j.finishAt]));
  const handles = ids.map((id) => `actor_video:${id}`);
  const reportedAt = new Map<string, number>();
  sim.log.clear();

  const mem0 = memory(server.pid);
  let maxRss = mem0?.rssMiB ?? Number.NaN;
  const sampler = setInterval(() => {
    const m = memory(server.pid);
    if (m) maxRss = Math.max(maxRss, m.rssMiB);
  }, 250);

  const started = Date.now();
  let waitCalls = 0;
  const share = Math.ceil(handles.length / opts.waiters);
  const loops = Array.from({ length: opts.waiters }, async (_, w) => {
    let pending = handles.slice(w * share, (w + 1) * share);
    while (pending.length > 0) {
      waitCalls++;
      const r = await server.client.callTool(
        { name: 'wait_for_jobs', arguments: { handles: pending, until: 'any', max_wait_s: 50 } },
        { timeout: 70_000 },
      );
      const answer = r.structuredContent as unknown as WaitAnswer | undefined;
      if (!answer) throw new Error(`wait_for_jobs gave no structured answer: ${JSON.stringify(r.content)}`);
      const now = Date.now();
      for (const j of answer.jobs) {
        if ((j.status === 'completed' || j.status === 'failed') && !reportedAt.has(j.handle))
          reportedAt.set(j.handle, now);
      }
      pending = answer.pending;
    }
  });
  try {
    await Promise.all(loops);
  } finally {
    clearInterval(sampler);
  }
  const wallS = (Date.now() - started) / 1000;
  const mem1 = memory(server.pid);

  // Reads per job from the simulator's log (arrival times).
  const reads = new Map<string, number[]>();
  for (const e of sim.log.entries()) {
    if (e.method !== 'GET' || e.path !== '/video/status') continue;
    const id = e.query.id ?? '';
    const list = reads.get(id) ?? [];
    list.push(e.at);
    reads.set(id, list);
  }
  let duplicatePolls = 0;
  let minGapMs = Number.POSITIVE_INFINITY;
  let over = 0;
  let maxExcess = Number.NEGATIVE_INFINITY;
  const counts: number[] = [];
  const references: number[] = [];
  const lags: number[] = [];
  const detect: number[] = [];
  for (const id of ids) {
    const at = (reads.get(id) ?? []).sort((a, b) => a - b);
    const end = finishAt.get(id) ?? Number.NaN;
    const reference = at.length === 0 ? 1 : 1 + Math.ceil(Math.max(0, end - (at[0] as number)) / RULE_MS);
    counts.push(at.length);
    references.push(reference);
    if (at.length > reference + 1) over++;
    maxExcess = Math.max(maxExcess, at.length - reference);
    for (let i = 1; i < at.length; i++) {
      const gap = (at[i] as number) - (at[i - 1] as number);
      minGapMs = Math.min(minGapMs, gap);
      if (gap < RULE_MS) duplicatePolls++;
    }
    const seen = at.find((t) => t >= end);
    if (seen !== undefined) detect.push((seen - end) / 1000);
    const rep = reportedAt.get(`actor_video:${id}`);
    if (rep !== undefined) lags.push((rep - end) / 1000);
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const stats = (xs: number[]) => ({
    p50: round(percentile(xs, 50)),
    p95: round(percentile(xs, 95)),
    max: round(Math.max(...xs)),
  });
  if (reportedAt.size !== ids.length) throw new Error(`only ${reportedAt.size} of ${ids.length} jobs were reported`);
  return {
    jobs: ids.length,
    waiters: opts.waiters,
    durationS: { min: opts.minS, max: opts.maxS },
    wallS: round(wallS, 1),
    waitCalls,
    requestsPerJob: { mean: round(mean(counts)), max: Math.max(...counts) },
    referencePerJob: { mean: round(mean(references)) },
    overReferencePlusOne: over,
    maxExcessOverReference: maxExcess,
    duplicatePolls,
    minGapMs: round(minGapMs, 0),
    lagS: stats(lags),
    detectLagS: stats(detect),
    rssMiB: {
      before: round(mem0?.rssMiB ?? Number.NaN, 1),
      maxDuring: round(maxRss, 1),
      // The kernel's high-water mark catches peaks between samples: growth is measured against it.
      growth: round(Math.max(maxRss, mem1?.peakMiB ?? Number.NaN) - (mem0?.rssMiB ?? Number.NaN), 1),
      peakBefore: round(mem0?.peakMiB ?? Number.NaN, 1),
      peakAfter: round(mem1?.peakMiB ?? Number.NaN, 1),
    },
  };
}
