/**
 * While a task is open its owner is followed (issue 29 item 2): every open job of the owner is read at the poller's
 * pace (src/jobs/follower.ts), so the task moves — and listen streams hear it — with nobody polling `tasks/get`.
 * Released when the task's job is final, when every item of its campaign is, or after `TASK_FOLLOW_MAX_MS`
 * (an approval's task, or a job that never ends: `tasks/get` still answers after that, reading on demand).
 */

import { CAMPAIGN_HANDLE_PREFIX, isCampaignHandle } from '../jobs/campaign-view.js';
import { decodeHandle, isPollable } from '../jobs/handle.js';
import type { Poller } from '../jobs/poller.js';
import type { JobStore } from '../jobs/store.js';
import type { Logger } from '../log.js';
import { watchCampaign } from './campaign-subscription.js';

/** 24 h: an approval's longest default wait (docs/approvals.md) and far beyond the platform's longest renders. */
export const TASK_FOLLOW_MAX_MS = 24 * 3_600_000;

export interface TaskFollowDeps {
  follow: () => () => void;
  poller: Poller;
  jobs: Pick<JobStore, 'bundleItems'>;
  log: Pick<Logger, 'debug'>;
}

/** Follows the owner of the task of `handle` until it is final (not awaited; never throws). */
export function followWhileOpen(handle: string, deps: TaskFollowDeps, maxMs = TASK_FOLLOW_MAX_MS): void {
  const unfollow = deps.follow();
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error('task follow time is up')), maxMs);
  timer.unref();
  const done = () => {
    clearTimeout(timer);
    ac.abort(new Error('task final'));
    unfollow();
  };
  until(handle, deps, ac.signal)
    .catch((err) => {
      if (!ac.signal.aborted) deps.log.debug('task follow ended', { handle, error: String(err) });
    })
    .finally(done);
}

/** Resolves when the task's job or campaign is final (rejects when `signal` aborts or the poller closes). */
async function until(handle: string, deps: TaskFollowDeps, signal: AbortSignal): Promise<void> {
  if (isCampaignHandle(handle)) {
    const id = handle.trim().slice(CAMPAIGN_HANDLE_PREFIX.length);
    return watchCampaign(id, deps, () => {}, signal);
  }
  const ref = decodeHandle(handle);
  if (!ref || !isPollable(ref)) {
    // An approval (or a job no read follows): held for the time bound alone.
    await new Promise<void>((_, reject) =>
      signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
    );
    return;
  }
  let o = await deps.poller.read(ref);
  while (o.view.status === 'processing') o = await deps.poller.next(ref, o.seq, signal);
}
