/**
 * Progress in the units people count (issue 29 item 2): a campaign is its N items ("k of N done"), a job is one.
 * One computation for wait_for_jobs' progress notifications over campaigns, and for the `_meta` note that change
 * notifications (2026 listen streams, 2025 resource subscriptions) carry, so a listener knows what moved without
 * reading the resource.
 */
import type { CampaignView } from './campaign-view.js';
import type { JobEnvelope } from './envelope.js';
import { doneOf, jobChanged, openPart, progressLine } from './wording.js';

/** The `_meta` key of a change notification's progress note. */
export const PROGRESS_META_KEY = 'io.genplat/progress';

/** What a change notification says about the job or campaign that changed. */
export interface ProgressNote {
  status: string;
  done: number;
  total: number;
  message: string;
}

/** How many progress lines name open handles before "(+n more)": one short line. */
const NAMED = 2;

const FINAL = new Set(['completed', 'failed', 'declined', 'unknown']);

/** A campaign as a note: "k of N done". */
export function campaignNote(v: CampaignView, status: string): ProgressNote {
  return { status, done: v.done, total: v.total, message: doneOf(v.done, v.total) };
}

/** A single job as a note. */
export function jobNote(status: string): ProgressNote {
  return { status, done: FINAL.has(status) ? 1 : 0, total: 1, message: jobChanged(status) };
}

/** The view an envelope carries when it is a campaign's (`details.campaign`), else undefined. */
function campaignOf(env: JobEnvelope): CampaignView | undefined {
  const c = env.details?.campaign as Partial<CampaignView> | undefined;
  return typeof c === 'object' && c !== null && typeof c.done === 'number' && typeof c.total === 'number'
    ? (c as CampaignView)
    : undefined;
}

/**
 * wait_for_jobs' progress over `envelopes` (one per handle; `finished[i]` = the wait counts it done): every
 * campaign item and every job is one unit, so a campaign of 6 moves 0 → 1 → … → 6, never 0/1 then 1/1.
 */
export function waitProgress(
  envelopes: readonly JobEnvelope[],
  finished: readonly boolean[],
): { progress: number; total: number; message: string } {
  let done = 0;
  let total = 0;
  const open: string[] = [];
  for (const [i, env] of envelopes.entries()) {
    const c = campaignOf(env);
    const units = c ? { done: c.done, total: c.total } : { done: finished[i] ? 1 : 0, total: 1 };
    done += finished[i] ? units.total : units.done;
    total += units.total;
    if (!finished[i]) open.push(openPart(env.handle ?? '', c ? doneOf(c.done, c.total) : env.status));
  }
  // One campaign alone: its own "k of N done" says it all.
  if (envelopes.length === 1 && campaignOf(envelopes[0]!))
    return { progress: done, total, message: doneOf(done, total) };
  const named = open.slice(0, NAMED);
  return { progress: done, total, message: progressLine(done, total, named, open.length - named.length) };
}
