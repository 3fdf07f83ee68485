/**
 * The outbox (issue 28 item 7): every admitted paid request that no caller is sending right now waits here as a
 * `queued` item of its bundle (a campaign is a bundle of N; `bundleId` = the campaign id), and leaves through the
 * one send (send.ts). What happens to a queued item is decided once, here:
 *
 *   past its consent window → released · admission never acknowledged (after the grace) → released ·
 *   held (waiting for an approval: `JobRecord.held`) → left · this process may not send it (read-only, another
 *   account or base URL) → left · else claimed
 *   queued → pending (compare-and-set: whoever gets the record back is the only one that POSTs it) → sendItem
 *
 * Used by the admitting call (its own bundle, at once) and by the sweep of every serving process (outbox-sweep.ts:
 * after a restart, on another instance of a fleet). A single call's intent never waits here: its caller admits it
 * already claimed (`pending`) and sends it at once, so a kill before its POST leaves it pending, as invariant 3 says.
 *
 * Domain code: no MCP SDK import.
 */
import type { z } from 'zod';
import type { BillableToolSpec, ToolContext } from '../define-tool.js';
import { UserInputError } from '../errors.js';
import type { ResolvedMedia } from '../files/local-media.js';
import { CAMPAIGN_HANDLE_PREFIX } from '../jobs/campaign-view.js';
import type { CampaignItemFile, ConsentedFor, JobRecord, JobStore } from '../jobs/store.js';
import type { Logger } from '../log.js';
import type { ItemWait } from '../store/types.js';
import type { ReleaseOutcome } from './admission-answer.js';
import type { BillingDeps } from './call-types.js';
import { mayNotSend } from './consented-for.js';
import { sendItem } from './send.js';
import { RELEASED_REASON, RELEASED_UNCONFIRMED, UPLOAD_GONE } from './wording.js';

/** Which tool sends an item of a bundle (the campaign tool's list of item tools). */
export type ItemSpecs = (tool: string) => BillableToolSpec<z.ZodRawShape> | undefined;

/**
 * How long a bundle item may stay unacknowledged (admitted, its admitting call never saw the COMMIT answered)
 * before a sweep releases it. The mark follows the COMMIT's answer by one store round trip; even a slow store
 * bounds that by its statement, lock and connect timeouts (15 + 8 + 5 s on PostgreSQL, src/store/db-timeouts.ts;
 * SQLite's busy timeout is 10 s), so 2 minutes is past any live admitting process's mark, with room for clock
 * skew between instances, and well inside the 10-minute consent window, so a lost answer's reservation comes back
 * long before the window would have released it.
 */
export const UNACKNOWLEDGED_GRACE_MS = 2 * 60_000;

export interface SenderDeps {
  jobs: JobStore;
  log: Logger;
  now: () => number;
  onStep?: BillingDeps['onStep'];
  /** This process's account and base URL (`consentedFor`): an item consented for others is not sent. */
  mine: ConsentedFor;
  /** `--read-only`: nothing is sent. */
  readOnly: boolean;
  /** The admitting call's own sender: it saw the COMMIT answered, so its items are acknowledged whatever the mark. */
  acknowledged?: boolean | undefined;
  /** Sweeps: the bundle's lease, taken before its first claim (releases need none). */
  lease?: (() => Promise<boolean>) | undefined;
  /** Sweeps: bundles whose refusal was already logged (once per bundle per process). */
  told?: Set<string> | undefined;
}

/**
 * The one release: a record surely not sent becomes `rejected` with `reason`, and its reservation stops counting.
 * A queued item only by compare-and-set (a sweeper may have claimed it since); a caller's own `pending` intent,
 * which only that caller would POST, directly. @returns whether it is released now.
 */
export async function release(jobs: JobStore, rec: JobRecord, reason: string): Promise<boolean> {
  const patch = { outcome: 'rejected' as const, status: 'failed' as const, reason };
  if (rec.outcome === 'queued') return (await jobs.claimItem(rec.id, patch, waitOf(rec))) !== undefined;
  if (rec.outcome !== 'pending') return false;
  await jobs.settle(rec.id, patch);
  return true;
}

/**
 * Sends a bundle's queued items, in index order, each at most once (see the head of this file). Safe to run in
 * several processes at once: only the claim's winner sends. @returns how many items this run POSTed.
 */
export async function sendBundle(
  bundleId: string,
  itemSpec: ItemSpecs,
  ctx: ToolContext,
  deps: SenderDeps,
): Promise<number> {
  let posted = 0;
  let leased = deps.lease === undefined;
  for (const item of await deps.jobs.bundleItems(bundleId)) {
    if (item.outcome !== 'queued' || !item.campaign) continue;
    if (Date.parse(item.campaign.sendBy) <= deps.now()) {
      await release(deps.jobs, item, RELEASED_REASON);
      continue;
    }
    if (!deps.acknowledged && item.acknowledgedAt === undefined) {
      // The agent was told "unknown" or nothing (a lost answer, a process killed before the mark): never sent.
      if (Date.parse(item.createdAt) + UNACKNOWLEDGED_GRACE_MS <= deps.now()) {
        await release(deps.jobs, item, RELEASED_UNCONFIRMED);
      }
      continue;
    }
    // Waiting for something else first (an approval): left as it is, its reservation kept, until unheld.
    if (item.held) continue;
    const why = mayNotSend(item.campaign, deps.mine, deps.readOnly);
    if (why) {
      if (!deps.told?.has(bundleId)) deps.log.warn('campaign items left unsent here', { campaign: bundleId, why });
      deps.told?.add(bundleId);
      continue;
    }
    if (!leased) {
      // Another instance holds this bundle: it sends the rest.
      leased = await deps.lease!();
      if (!leased) return posted;
    }
    const spec = itemSpec(item.tool);
    const rec = await deps.jobs.claimItem(item.id, { outcome: 'pending' });
    const info = rec?.campaign;
    if (!rec || !info) continue;
    if (!spec) {
      // Cannot happen for items this code admitted; fail closed: nothing sent, reservation returned.
      await release(deps.jobs, rec, `unknown tool ${rec.tool}`);
      continue;
    }
    const files = info.files;
    const out = {
      spec,
      input: info.input,
      request: info.request,
      files: files && files.length > 0 ? () => reopenAll(files, ctx) : undefined,
      kind: rec.kind,
      estimate: rec.estimate,
      posted: 'campaign_item_posted' as const,
    };
    await sendItem(rec, out as Parameters<typeof sendItem>[1], ctx, { ...deps, selfStager: ctx.files?.selfStager });
    posted++;
  }
  return posted;
}

/**
 * After a lost COMMIT answer: every still-queued item of the bundle released (compare-and-set, so an item a
 * sweeper claimed stays its; none can be, unacknowledged). @throws while the store is unreachable.
 */
export async function releaseUnacknowledged(jobs: JobStore, id: string): Promise<ReleaseOutcome> {
  const items = await jobs.bundleItems(id);
  if (items.length === 0) return 'absent';
  let kept = false;
  for (const item of items) {
    if (item.outcome === 'queued' && (await release(jobs, item, RELEASED_UNCONFIRMED))) continue;
    const now = item.outcome === 'queued' ? await jobs.get(item.id) : item;
    if (now?.outcome !== 'rejected') kept = true;
  }
  return kept ? 'kept' : 'released';
}

/**
 * The second small write after the COMMIT's answer: each item marked acknowledged (compare-and-set while queued).
 * A mark the store refuses only costs that item its resumption by a sweep (it is released after the grace); this
 * process's own sender sends it either way.
 */
export async function acknowledge(deps: Pick<BillingDeps, 'jobs' | 'log' | 'now'>, id: string, records: JobRecord[]) {
  const acknowledgedAt = new Date(deps.now()).toISOString();
  for (const rec of records) {
    await deps.jobs.claimItem(rec.id, { acknowledgedAt }, waitOf(rec)).catch((err: unknown) =>
      deps.log.warn('campaign item not marked acknowledged; a sweep will release it unsent', {
        campaign: id,
        error: String(err),
      }),
    );
  }
}

/** Where a queued item waits (the state `claimItem` compares with). */
function waitOf(rec: JobRecord): ItemWait {
  return rec.held ? 'held' : 'queued';
}

/** A queued item's files as the stager reads them, by placeholder. */
async function reopenAll(files: CampaignItemFile[], ctx: ToolContext): Promise<Map<string, ResolvedMedia>> {
  const opened = new Map<string, ResolvedMedia>();
  for (const f of files) opened.set(f.placeholder, await reopen(f, ctx));
  return opened;
}

/**
 * An item's file as the stager reads it: the local path, or the upload opened again in the shared store for the
 * caller who quoted it. @throws UserInputError naming the field when the upload is gone (nothing sent).
 */
async function reopen(f: CampaignItemFile, ctx: ToolContext): Promise<ResolvedMedia> {
  const { placeholder: _p, ...facts } = f;
  if (facts.source !== 'upload') return { ...facts, source: 'path' };
  const upload = await ctx.files?.uploads.open(facts.uploadId, facts.owner);
  if (!upload) throw new UserInputError(f.field, UPLOAD_GONE);
  return { ...facts, id: facts.uploadId, upload };
}

/**
 * Bundles with queued items, each sent by whoever holds its lease (one instance of a fleet at a time), taken
 * only when this process has an item to send: a read-only or other-account process never holds it.
 */
export async function sweepOutbox(
  itemSpec: ItemSpecs,
  ctx: ToolContext,
  deps: Omit<SenderDeps, 'lease' | 'acknowledged'> & { holder: string; leaseMs: number },
): Promise<number> {
  let posted = 0;
  for (const id of await deps.jobs.queuedBundles()) {
    const lease = () => deps.jobs.tryLease(`${CAMPAIGN_HANDLE_PREFIX}${id}`, deps.leaseMs, deps.holder);
    posted += await sendBundle(id, itemSpec, ctx, { ...deps, lease });
  }
  return posted;
}
