/**
 * `untilSomethingMoves` (src/jobs/campaign-wait.ts) when the look saw an item open that the poller already knows
 * is final (the store lagging the poller by a moment): the round ends at the poller's pace, never at the wait's
 * deadline. Found in CI under load: a wait_for_jobs on a finished campaign took its whole max_wait_s.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openWork, untilSomethingMoves } from '../../../src/jobs/campaign-wait.js';
import type { JobRef } from '../../../src/jobs/handle.js';
import { createPoller } from '../../../src/jobs/poller.js';
import { silentLogger } from '../../../src/log.js';
import { fakeClient, memoryStore, ok } from './fake-client.js';

const ref: JobRef = { kind: 'actor_video', id: 'done-1' };

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('campaign wait rounds', () => {
  it('an item final for the poller but open in the look ends the round at the pace, not the deadline', async () => {
    const poller = createPoller({
      client: fakeClient({
        actors: { status: async () => ok({ id: 'done-1', status: 'completed', url: 'https://x/v.mp4' }) },
      }),
      jobs: memoryStore(),
      log: silentLogger,
    });
    // The poller learns the job is final (its read), while the look that follows still saw it processing.
    await poller.read(ref);
    let ended = false;
    const round = untilSomethingMoves(
      poller,
      { refs: [ref], unsent: false },
      60_000,
      new AbortController().signal,
    ).then(() => {
      ended = true;
    });
    await vi.advanceTimersByTimeAsync(poller.paceMs + 1);
    expect(ended, `round still sleeping after the pace (${poller.paceMs} ms) of a 60 s wait`).toBe(true);
    await round;
    poller.close();
  });

  it('openWork: no refs and nothing unsent for a campaign whose items are all final', async () => {
    const store = memoryStore();
    const work = await openWork(['campaign:none'], new Map(), [false], store);
    expect(work).toEqual({ refs: [], unsent: false });
  });
});
