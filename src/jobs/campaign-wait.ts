/**
 * Between two looks of a wait_for_jobs that names campaigns (issue 21 item 4): sleep until something can have
 * changed, at the shared poller's pace, never on a fixed short timer. What can change: a job the poller follows
 * (a plain job, or a campaign item already sent) — its next read wakes us; an item still queued or being sent —
 * the sender (this instance or another) moves it, which no read announces, so those are looked at again after
 * the poller's pace (`Poller.paceMs`, 5 s in production).
 */
import { CAMPAIGN_HANDLE_PREFIX, isCampaignHandle } from './campaign-view.js';
import { isPollable, type JobRef, recordRef } from './handle.js';
import type { Poller } from './poller.js';
import type { JobStore } from './store.js';
import type { JobView } from './view.js';

/** What one look found still open: refs the poller follows, and whether an item is not yet sent. */
export interface OpenWork {
  refs: JobRef[];
  /** An open item no read announces (unsent, or without a pollable ref): look again at the poller's pace. */
  unsent: boolean;
}

/**
 * The open work behind `handles`: plain jobs' refs as resolved (`jobRefs`, by handle), and each campaign's items
 * that are not final — sent ones by ref, unsent ones as the `unsent` flag.
 */
export async function openWork(
  handles: readonly string[],
  jobRefs: ReadonlyMap<string, JobRef>,
  finished: readonly boolean[],
  jobs: Pick<JobStore, 'bundleItems'>,
): Promise<OpenWork> {
  const refs: JobRef[] = [];
  let unsent = false;
  for (const [i, h] of handles.entries()) {
    if (finished[i]) continue;
    if (!isCampaignHandle(h)) {
      const ref = jobRefs.get(h);
      if (ref && isPollable(ref)) refs.push(ref);
      continue;
    }
    for (const r of await jobs.bundleItems(h.trim().slice(CAMPAIGN_HANDLE_PREFIX.length))) {
      if (r.outcome !== 'submitted') {
        // Queued or being sent: the sender moves it. (Rejected / unknown items are final.)
        if (r.outcome === 'queued' || r.outcome === 'pending') unsent = true;
        continue;
      }
      if (r.status === 'completed' || r.status === 'failed') continue;
      const ref = recordRef(r);
      // An open item the poller cannot follow is looked at at the poller's pace, like an unsent one: never
      // left to sleep until the deadline.
      if (ref && isPollable(ref)) refs.push(ref);
      else unsent = true;
    }
  }
  return { refs, unsent };
}

/** The part of a view the campaign answer shows (not the read's request id or a transient note). */
function whatTheViewShows(v: JobView): string {
  return JSON.stringify([v.status, v.outputs, v.reason, v.creditsCharged, v.creditsRefunded]);
}

/**
 * Resolves at the first of: a read of any ref that changed its view (reads at the poller's own schedule), the
 * poller's pace when an item is unsent, `leftMs`, or `signal`. Never reads the platform itself beyond the poller's cached `read`.
 */
export async function untilSomethingMoves(
  poller: Poller,
  work: OpenWork,
  leftMs: number,
  signal: AbortSignal,
): Promise<void> {
  if (leftMs <= 0 || signal.aborted) return;
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const sleep = Math.min(leftMs, work.unsent ? poller.paceMs : leftMs);
    const watchers = work.refs.map(async (ref) => {
      let o = await poller.read(ref);
      // Final for the poller already while the look saw it open: the store shows it at the next look, so look
      // again at the poller's pace — not at once (a store that lags the poller would spin this loop), and never
      // "not at all" (the round then slept to the deadline with every item done: a wait_for_jobs that took its
      // whole max_wait_s under load, test/campaigns/upscale-items.test.ts in CI).
      if (o.view.status !== 'processing') {
        return new Promise<void>((resolve) => setTimeout(resolve, poller.paceMs).unref());
      }
      // Each `next` is one read at the poller's schedule; only a read that changed something ends the round
      // (a job still processing at its next read is no news: N jobs would otherwise wake N times per interval).
      const before = whatTheViewShows(o.view);
      do o = await poller.next(ref, o.seq, stop.signal);
      while (whatTheViewShows(o.view) === before);
    });
    await Promise.race([
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, sleep);
      }),
      // A watcher ending (a newer view) or failing (the abort, a closed poller) both mean: look again.
      ...watchers.map((w) => w.catch(() => undefined)),
      new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true })),
    ]);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    stop.abort(new Error('wait round over'));
  }
}
