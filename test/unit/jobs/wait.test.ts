import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobRef } from '../../../src/jobs/handle.js';
import { createPoller } from '../../../src/jobs/poller.js';
import { type WaitProgress, waitForJobs } from '../../../src/jobs/wait.js';
import { silentLogger } from '../../../src/log.js';
import { fakeClient, memoryStore, ok } from './fake-client.js';

const ref = (id: string): JobRef => ({ kind: 'actor_video', id });

/** Jobs that finish at a given (fake) time; `Infinity` never finishes. */
function jobsFinishingAt(finish: Record<string, number>) {
  const fn = vi.fn(async (id: string) =>
    ok(
      Date.now() >= (finish[id] ?? Number.POSITIVE_INFINITY)
        ? { status: 'completed', url: `https://cdn.example/${id}.mp4` }
        : { status: 'processing' },
    ),
  );
  const poller = createPoller({
    client: fakeClient({ actors: { status: fn } }),
    jobs: memoryStore(),
    log: silentLogger,
    random: () => 0.5,
  });
  return { fn, poller };
}

const T0 = 1_000_000;
beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('waitForJobs', () => {
  it('returns at the deadline with the pending handles, not an error', async () => {
    const { poller } = jobsFinishingAt({ a: T0 + 3_000 });
    let returnedAt = 0;
    const p = waitForJobs(poller, [ref('a'), ref('b'), ref('c')], { until: 'all', maxWaitMs: 20_000 }).then((r) => {
      returnedAt = Date.now();
      return r;
    });
    await vi.advanceTimersByTimeAsync(25_000);
    const r = await p;
    expect(r.done).toBe(false);
    expect(r.pending).toEqual(['actor_video:b', 'actor_video:c']);
    expect(r.jobs.map((j) => j.view.status)).toEqual(['completed', 'processing', 'processing']);
    expect(returnedAt - T0).toBe(20_000);
    poller.close();
  });

  it('deadline is honoured to the millisecond range even while reads are due later', async () => {
    const { poller } = jobsFinishingAt({});
    let returnedAt = 0;
    const p = waitForJobs(poller, [ref('a')], { until: 'all', maxWaitMs: 7_000 }).then((r) => {
      returnedAt = Date.now();
      return r;
    });
    await vi.advanceTimersByTimeAsync(20_000);
    expect((await p).pending).toEqual(['actor_video:a']);
    expect(returnedAt - T0).toBeGreaterThanOrEqual(7_000);
    expect(returnedAt - T0).toBeLessThanOrEqual(7_100);
    poller.close();
  });

  it('until all: returns as soon as every job is terminal', async () => {
    const { poller } = jobsFinishingAt({ a: T0 + 6_000, b: T0 + 12_000 });
    let returnedAt = 0;
    const p = waitForJobs(poller, [ref('a'), ref('b')], { until: 'all', maxWaitMs: 45_000 }).then((r) => {
      returnedAt = Date.now();
      return r;
    });
    await vi.advanceTimersByTimeAsync(45_000);
    const r = await p;
    expect(r).toMatchObject({ done: true, pending: [] });
    expect(r.jobs[1]!.view.outputs).toEqual([{ url: 'https://cdn.example/b.mp4', media: 'video' }]);
    // Reads at 0, 7.5, 15 s (random 0.5): b is seen done at 15 s.
    expect(returnedAt - T0).toBe(15_000);
    poller.close();
  });

  it('until any: returns at the first terminal job', async () => {
    const { poller } = jobsFinishingAt({ a: T0 + 60_000, b: T0 + 1_000 });
    let returnedAt = 0;
    const p = waitForJobs(poller, [ref('a'), ref('b')], { until: 'any', maxWaitMs: 45_000 }).then((r) => {
      returnedAt = Date.now();
      return r;
    });
    await vi.advanceTimersByTimeAsync(45_000);
    const r = await p;
    expect(r).toMatchObject({ done: true, pending: ['actor_video:a'] });
    expect(returnedAt - T0).toBe(7_500);
    poller.close();
  });

  it('abort stops waiting at once and sends no request for the job', async () => {
    const { fn, poller } = jobsFinishingAt({});
    const ac = new AbortController();
    const p = waitForJobs(poller, [ref('a')], { until: 'all', maxWaitMs: 45_000, signal: ac.signal });
    await vi.advanceTimersByTimeAsync(2_000);
    ac.abort();
    await vi.advanceTimersByTimeAsync(0);
    const r = await p;
    expect(r).toMatchObject({ aborted: true, done: false, pending: ['actor_video:a'] });
    const calls = fn.mock.calls.length;
    await vi.advanceTimersByTimeAsync(30_000);
    // Nothing keeps polling for the cancelled wait, and nothing else was called (no cancel endpoint exists).
    expect(fn.mock.calls.length).toBe(calls);
    poller.close();
  });

  it('progress is strictly increasing and names what is pending', async () => {
    const { poller } = jobsFinishingAt({ a: T0 + 6_000, b: T0 + 14_000, c: T0 + 100_000 });
    const seen: WaitProgress[] = [];
    const p = waitForJobs(poller, [ref('a'), ref('b'), ref('c')], {
      until: 'all',
      maxWaitMs: 30_000,
      onProgress: (x) => {
        seen.push(x);
      },
    });
    await vi.advanceTimersByTimeAsync(31_000);
    await p;
    expect(seen.length).toBeGreaterThan(5);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
    for (const s of seen) expect(s.progress).toBeLessThanOrEqual(s.total);
    expect(seen[0]!.message).toMatch(/^0\/3 done; actor_video:a processing, actor_video:b processing \(\+1 more\)$/);
    expect(seen.at(-1)!.message).toMatch(/^2\/3 done; actor_video:c processing$/);
    poller.close();
  });

  it('several waits on the same job share its reads', async () => {
    const { fn, poller } = jobsFinishingAt({ a: T0 + 20_000 });
    const waits = Array.from({ length: 5 }, () => waitForJobs(poller, [ref('a')], { until: 'all', maxWaitMs: 45_000 }));
    await vi.advanceTimersByTimeAsync(45_000);
    await Promise.all(waits);
    // Reads at 0, 7.5, 15, 22.5 s: four, not twenty.
    expect(fn).toHaveBeenCalledTimes(4);
    poller.close();
  });
});
