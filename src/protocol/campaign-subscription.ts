/**
 * A 2025 `resources/subscribe` to `genplat://campaigns/{id}` (issue 21 item 4): one loop per subscription that
 * sleeps until something can have changed (src/jobs/campaign-wait.ts: the shared poller's reads of sent items,
 * its pace for unsent ones) and calls `updated` when what the campaign resource shows changed: an item sent,
 * finished, failed, released, charged or refunded. Ends when every item is final or the subscription goes.
 */
import { CAMPAIGN_HANDLE_PREFIX, campaignFromRecords } from '../jobs/campaign-view.js';
import { openWork, untilSomethingMoves } from '../jobs/campaign-wait.js';
import type { Poller } from '../jobs/poller.js';
import type { JobStore } from '../jobs/store.js';

/** A round with no news still looks at the store this often (a lost wake-up costs at most this). */
const LOOK_AT_LEAST_EVERY_MS = 60_000;

export async function watchCampaign(
  id: string,
  deps: { poller: Poller; jobs: Pick<JobStore, 'bundleItems'> },
  updated: () => void,
  signal: AbortSignal,
): Promise<void> {
  const handle = `${CAMPAIGN_HANDLE_PREFIX}${id}`;
  const shown = async () => {
    const v = campaignFromRecords(id, await deps.jobs.bundleItems(id));
    return { done: v.done === v.total, key: JSON.stringify(v.items) };
  };
  let last = await shown();
  while (!signal.aborted && !last.done) {
    const work = await openWork([handle], new Map(), [false], deps.jobs);
    await untilSomethingMoves(deps.poller, work, LOOK_AT_LEAST_EVERY_MS, signal);
    if (signal.aborted) return;
    const now = await shown();
    if (now.key !== last.key) updated();
    last = now;
  }
}
