import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, ServerError } from '../../../src/errors.js';
import type { JobRef } from '../../../src/jobs/handle.js';
import { createPoller, type Observed, type PollerChange, SPEC_MIN_READ_GAP_MS } from '../../../src/jobs/poller.js';
import { silentLogger } from '../../../src/log.js';
import { fakeClient, memoryStore, ok } from './fake-client.js';

const ref = (id: string): JobRef => ({ kind: 'actor_video', id });

/** A status endpoint that records when each id was read and answers from a per-id script. */
function recordingStatus(answer: (id: string, n: number) => unknown = () => ({ status: 'processing' })) {
  const reads = new Map<string, number[]>();
  const fn = vi.fn(async (id: string) => {
    const times = reads.get(id) ?? [];
    times.push(Date.now());
    reads.set(id, times);
    return ok(answer(id, times.length));
  });
  return { fn, reads };
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('poller', () => {
  it('never reads a job twice within min, however many watchers; gaps stay in [min, max]', async () => {
    const { fn, reads } = recordingStatus();
    const poller = createPoller({
      client: fakeClient({ actors: { status: fn } }),
      jobs: memoryStore(),
      log: silentLogger,
    });
    const stop = new AbortController();
    const watcher = async () => {
      let o: Observed = await poller.read(ref('a'));
      for (;;) o = await poller.next(ref('a'), o.seq, stop.signal);
    };
    const running = Array.from({ length: 6 }, () => watcher().catch(() => {}));
    // A get_job-style read in the middle must not add a read either.
    await vi.advanceTimersByTimeAsync(2_000);
    await poller.read(ref('a'));
    await vi.advanceTimersByTimeAsync(118_000);
    stop.abort();
    await Promise.all(running);
    poller.close();

    const times = reads.get('a')!;
    expect(times.length).toBeGreaterThanOrEqual(12); // 120 s / 10 s max interval
    expect(times.length).toBeLessThanOrEqual(25); // 120 s / 5 s min interval + the first
    for (const g of gaps(times)) {
      expect(g).toBeGreaterThanOrEqual(5_000);
      expect(g).toBeLessThanOrEqual(10_000);
    }
  });

  it('coalesces concurrent reads into one request', async () => {
    let release: (v: unknown) => void = () => {};
    const fn = vi.fn(() => new Promise((r) => (release = r)));
    const poller = createPoller({
      client: fakeClient({ actors: { status: fn } }),
      jobs: memoryStore(),
      log: silentLogger,
    });
    const all = Promise.all(Array.from({ length: 10 }, () => poller.read(ref('a'))));
    await vi.advanceTimersByTimeAsync(0);
    release(ok({ status: 'processing' }));
    const results = await all;
    expect(fn).toHaveBeenCalledTimes(1);
    expect(new Set(results.map((r) => r.seq))).toEqual(new Set([1]));
    // A read 1 s later answers from the cache.
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await poller.read(ref('a'))).seq).toBe(1);
    expect(fn).toHaveBeenCalledTimes(1);
    poller.close();
  });

  it.each([
    [0, 5_000],
    [0.5, 7_500],
    [0.999_999, 10_000],
  ])('jitter: random() = %s puts the next read %s ms after the previous one', async (r, expected) => {
    const { fn, reads } = recordingStatus();
    const poller = createPoller({
      client: fakeClient({ actors: { status: fn } }),
      jobs: memoryStore(),
      log: silentLogger,
      random: () => r,
    });
    const first = await poller.read(ref('a'));
    const next = poller.next(ref('a'), first.seq);
    await vi.advanceTimersByTimeAsync(10_000);
    await next;
    const [g] = gaps(reads.get('a')!);
    expect(g).toBeGreaterThanOrEqual(5_000);
    expect(g).toBeLessThanOrEqual(10_000);
    expect(Math.abs(g! - expected)).toBeLessThanOrEqual(1);
    poller.close();
  });

  it('caches terminal results: never polled again', async () => {
    const { fn } = recordingStatus(() => ({ status: 'completed', url: 'https://cdn.example/v.mp4' }));
    const poller = createPoller({
      client: fakeClient({ actors: { status: fn } }),
      jobs: memoryStore(),
      log: silentLogger,
    });
    const o = await poller.read(ref('a'));
    expect(o.view.status).toBe('completed');
    await vi.advanceTimersByTimeAsync(60_000);
    expect((await poller.next(ref('a'), o.seq)).view.status).toBe('completed');
    expect((await poller.read(ref('a'))).view.outputs).toHaveLength(1);
    expect(fn).toHaveBeenCalledTimes(1);
    poller.close();
  });

  it('bounds concurrent reads', async () => {
    let active = 0;
    let peak = 0;
    const fn = vi.fn(async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 100));
      active--;
      return ok({ status: 'processing' });
    });
    const poller = createPoller({
      client: fakeClient({ actors: { status: fn } }),
      jobs: memoryStore(),
      log: silentLogger,
      concurrency: 3,
    });
    const all = Promise.all(Array.from({ length: 20 }, (_, i) => poller.read(ref(`j${i}`))));
    await vi.advanceTimersByTimeAsync(2_000);
    await all;
    expect(fn).toHaveBeenCalledTimes(20);
    expect(peak).toBe(3);
    poller.close();
  });

  it('updates the ledger record on every change and keeps the upscale originalUrl', async () => {
    const jobs = memoryStore();
    const upRef: JobRef = { kind: 'upscale', id: 'v1', projectId: 'p1', videoType: 'video', billingId: 'b1' };
    const rec = await jobs.track({
      tool: 'upscale_video',
      kind: 'upscale',
      fingerprint: 'f',
      summary: 'upscale',
      estimate: undefined,
      consent: 'policy',
      owner: undefined,
      handle: 'upscale:video:p1:v1:b1',
      status: 'processing',
      originalUrl: 'https://cdn.example/original.mp4',
    });
    const status = vi
      .fn()
      .mockResolvedValueOnce(ok({ id: 'v1', billing_id: 'b1', status: 'charged', credits_charged: 300 }))
      .mockResolvedValueOnce(
        ok({
          id: 'v1',
          billing_id: 'b1',
          status: 'completed',
          video_url: 'https://cdn.example/up.mp4',
          credits_charged: 300,
        }),
      );
    const poller = createPoller({ client: fakeClient({ upscale: { status } }), jobs, log: silentLogger });
    const o = await poller.read(upRef);
    expect(jobs.records[0]).toMatchObject({ status: 'processing', creditsCharged: 300 });
    const next = poller.next(upRef, o.seq);
    await vi.advanceTimersByTimeAsync(10_000);
    await next;
    expect(await jobs.get(rec.id)).toMatchObject({
      status: 'completed',
      outputs: [{ url: 'https://cdn.example/up.mp4', media: 'video' }],
      originalUrl: 'https://cdn.example/original.mp4',
    });
    poller.close();
  });

  it('a transient error keeps the job processing with a note; a 404 becomes unknown with the reason', async () => {
    const actors = vi
      .fn()
      .mockRejectedValueOnce(
        new ServerError(502, undefined, {}, 'rq', 'The platform had a server error (502).', 'later'),
      );
    const products = vi
      .fn()
      .mockRejectedValue(ApiError.fromResponse(404, { status: false, message: 'video not found' }, 'rq'));
    const poller = createPoller({
      client: fakeClient({ actors: { status: actors }, products: { status: products } }),
      jobs: memoryStore(),
      log: silentLogger,
    });
    const a = await poller.read(ref('a'));
    expect(a.view).toMatchObject({ status: 'processing', note: expect.stringMatching(/502.*still polling/) });
    const b = await poller.read({ kind: 'product_video', id: 'zz' });
    expect(b.view).toMatchObject({ status: 'unknown', reason: expect.stringMatching(/video not found/) });
    poller.close();
  });

  it('aborting one watcher neither cancels the shared read nor stops other watchers', async () => {
    let release: (v: unknown) => void = () => {};
    const fn = vi.fn(() => new Promise((r) => (release = r)));
    const poller = createPoller({
      client: fakeClient({ actors: { status: fn } }),
      jobs: memoryStore(),
      log: silentLogger,
    });
    const ac = new AbortController();
    const a = poller.next(ref('a'), 0, ac.signal);
    const b = poller.next(ref('a'), 0);
    await vi.advanceTimersByTimeAsync(0);
    ac.abort(new Error('cancelled by client'));
    await expect(a).rejects.toThrow('cancelled by client');
    release(ok({ status: 'completed', url: 'https://cdn.example/v.mp4' }));
    expect((await b).view.status).toBe('completed');
    expect(fn).toHaveBeenCalledTimes(1);
    poller.close();
  });

  it('emits change events on new status only', async () => {
    const { fn } = recordingStatus((_, n) => (n < 3 ? { status: 'processing' } : { status: 'failed', reason: 'x' }));
    const poller = createPoller({
      client: fakeClient({ actors: { status: fn } }),
      jobs: memoryStore(),
      log: silentLogger,
    });
    const changes: PollerChange[] = [];
    poller.onChange((c) => changes.push(c));
    let o = await poller.read(ref('a'));
    while (o.view.status === 'processing') {
      const p = poller.next(ref('a'), o.seq);
      await vi.advanceTimersByTimeAsync(10_000);
      o = await p;
    }
    expect(fn).toHaveBeenCalledTimes(3);
    expect(changes.map((c) => [c.previous, c.view.status])).toEqual([
      [undefined, 'processing'],
      ['processing', 'failed'],
    ]);
    poller.close();
  });

  it('answers ledger-only handles from the ledger without a request', async () => {
    const jobs = memoryStore();
    await jobs.track({
      tool: 'create_talking_video',
      kind: 'actor_video',
      fingerprint: 'f',
      summary: 's',
      estimate: undefined,
      consent: 'policy',
      owner: undefined,
      outcome: 'unknown',
      status: 'unknown',
    });
    const poller = createPoller({ client: fakeClient(), jobs, log: silentLogger });
    const o = await poller.read({ kind: 'submission', id: 'l1' });
    expect(o.view.status).toBe('unknown');
    expect(o.view.reason).toMatch(/may or may not/);
    poller.close();
  });

  describe('webhook hints', () => {
    it('hint: reads at the spec floor after the last read (past the interval, never sooner), then wakes waiters', async () => {
      const { fn, reads } = recordingStatus((_id, n) =>
        n === 1 ? { status: 'processing' } : { status: 'completed', url: 'https://cdn.example.com/a.mp4' },
      );
      const poller = createPoller({
        client: fakeClient({ actors: { status: fn } }),
        jobs: memoryStore(),
        log: silentLogger,
        intervalMs: { min: 600_000, max: 600_000 },
      });
      const first = await poller.read(ref('a'));
      let woke: Observed | undefined;
      const waiting = poller.next(ref('a'), first.seq).then((o) => {
        woke = o;
      });
      await vi.advanceTimersByTimeAsync(1_000);
      expect(woke).toBeUndefined();
      const hinting = poller.hint(ref('a'));
      // 1 s after the first read: the hinted read waits for the 5 s floor (issue 19 item 5).
      await vi.advanceTimersByTimeAsync(SPEC_MIN_READ_GAP_MS - 1_000 - 10);
      expect(reads.get('a')).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(20);
      const hinted = await hinting;
      await waiting;
      expect(hinted.view.status).toBe('completed');
      expect(woke?.view.status).toBe('completed');
      expect(reads.get('a')).toHaveLength(2);
      // A terminal job is never read again, hint or not.
      await poller.hint(ref('a'));
      expect(reads.get('a')).toHaveLength(2);
      poller.close();
    });

    it('concurrent hints share one read', async () => {
      const { fn, reads } = recordingStatus();
      const poller = createPoller({
        client: fakeClient({ actors: { status: fn } }),
        jobs: memoryStore(),
        log: silentLogger,
        intervalMs: { min: 600_000, max: 600_000 },
      });
      await poller.read(ref('a'));
      const all = Promise.all([poller.hint(ref('a')), poller.hint(ref('a')), poller.hint(ref('a'))]);
      await vi.advanceTimersByTimeAsync(SPEC_MIN_READ_GAP_MS);
      await all;
      expect(reads.get('a')).toHaveLength(2);
      // A replay right after: the next hinted read is again a floor later, not at once.
      const again = poller.hint(ref('a'));
      await vi.advanceTimersByTimeAsync(SPEC_MIN_READ_GAP_MS - 10);
      expect(reads.get('a')).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(20);
      await again;
      expect(reads.get('a')).toHaveLength(3);
      poller.close();
    });

    it('wake: a sleeping waiter re-reads now; a job nobody watches is left alone', async () => {
      const { fn, reads } = recordingStatus((_id, n) => (n === 1 ? { status: 'processing' } : { status: 'failed' }));
      const poller = createPoller({
        client: fakeClient({ actors: { status: fn } }),
        jobs: memoryStore(),
        log: silentLogger,
        intervalMs: { min: 600_000, max: 600_000 },
      });
      const first = await poller.read(ref('a'));
      const waiting = poller.next(ref('a'), first.seq);
      await vi.advanceTimersByTimeAsync(1_000);
      poller.wake('actor_video\u0000nobody');
      poller.wake(`actor_video\u0000a`);
      expect((await waiting).view.status).toBe('failed');
      expect(reads.get('a')).toHaveLength(2);
      expect(reads.get('nobody')).toBeUndefined();
      poller.close();
    });
  });
});
