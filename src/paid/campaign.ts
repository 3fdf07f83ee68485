/**
 * Campaigns (issue 21): many paid items, one quote, one consent, one admission, each item POSTed at most once.
 *
 *   items (each through its own tool's prepareCall) → guardCall once (total; every consent carrier) →
 *   store.admitCampaign (one transaction: every item `queued`, or nothing) → sendCampaign (per item: claim
 *   queued → pending, one POST through its tool's run(), settle)
 *
 * A `queued` item counts at its quote in today's spend (a reservation) until it is sent or released. The claim
 * is a compare-and-set in the store, so whichever process (this call, a restarted server, another instance of
 * the fleet) claims an item is the only one that POSTs it; a claimed item whose answer was lost stays `pending`
 * / `unknown` and is never claimed again. Items are sent one after another through the platform client (its
 * queue paces requests): a campaign never fires its 50 POSTs at once.
 *
 * The consent window: an item not sent within the confirmation token's TTL of its admission (10 min by
 * default, `sendBy`) is released, never sent late: the person agreed to a campaign starting now.
 *
 * Domain code: no MCP SDK import.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { BillableToolSpec, CampaignItem, PlatformRequest, ToolContext } from '../define-tool.js';
import { mayHaveBeenAccepted, StagingError, UserInputError } from '../errors.js';
import { stagerFor } from '../files/files-deps.js';
import type { ResolvedMedia } from '../files/local-media.js';
import { type StagedRequest, stageRequest } from '../files/staging.js';
import { CAMPAIGN_HANDLE_PREFIX } from '../jobs/campaign-view.js';
import type { Estimate, JobEnvelope } from '../jobs/envelope.js';
import type { CampaignItemFile, JobRecord, JobStore } from '../jobs/store.js';
import type { Logger } from '../log.js';
import { evaluateCampaignAdmission } from './admission.js';
import type { BillingDeps, PaidCallResult } from './call-types.js';
import { fingerprint as fingerprintOf } from './fingerprint.js';
import { admitRules, confirmationRequired, type GuardDecision, type GuardRequest } from './guard.js';
import { settleFailure, settleSubmission } from './settle.js';
import { TOKEN_TTL_MS } from './token.js';
import { refusalError, TOKEN_ALREADY_USED } from './wording.js';

export const MAX_CAMPAIGN_ITEMS = 50;

/** The reason a released item carries (the campaign view reports it as `released`). */
export const RELEASED_REASON =
  'released: the campaign consent window ended before this item was sent; nothing was sent or charged, its reservation was returned';

/** The signal item `run()`s see: once an item's POST may be on the wire, only its answer names the job. */
const NEVER_ABORTS: AbortSignal = new AbortController().signal;

export interface CampaignCall {
  items: CampaignItem[];
  estimate: Estimate;
  itemSpec(tool: string): BillableToolSpec<z.ZodRawShape> | undefined;
}

/** Admits the consented campaign in one store transaction, then starts sending it (not awaited). */
export async function admitCampaignCall(
  campaign: CampaignCall,
  call: GuardRequest,
  decision: Extract<GuardDecision, { kind: 'allow' }>,
  ctx: ToolContext,
  deps: BillingDeps,
): Promise<PaidCallResult> {
  const id = randomUUID();
  // Free reads each item's admission depends on (upscale: re-read an active attempt for its video so a finished
  // one stops blocking), outside any transaction, as a single call does. @throws UserInputError naming the item.
  for (const [index, item] of campaign.items.entries()) {
    await campaign
      .itemSpec(item.tool)
      ?.billable.beforeAdmit?.(item.input as never, ctx)
      .catch((err: unknown) => {
        throw atItem(index, err);
      });
  }
  const exclusives = campaign.items.map((item) =>
    campaign.itemSpec(item.tool)?.billable.exclusive?.(item.input as never),
  );
  const sendBy = new Date(deps.now() + (deps.tokenTtlMs ?? TOKEN_TTL_MS)).toISOString();
  const total = campaign.items.length;
  const intents = campaign.items.map((item, index) => ({
    id: randomUUID(),
    tool: item.tool,
    kind: item.kind,
    fingerprint: itemFingerprint(item),
    summary: item.summary,
    estimate: item.estimate,
    consent: decision.consent,
    owner: deps.owner,
    ...(exclusives[index] ? { exclusiveKey: exclusives[index].key } : {}),
    campaign: {
      id,
      fingerprint: decision.fingerprint,
      index,
      total,
      input: item.input,
      request: item.request,
      varied: item.varied,
      sendBy,
      ...(item.files ? { files: item.files } : {}),
    },
  }));
  const guardDeps = { config: deps.config, now: deps.now };
  const rules = {
    ...admitRules(guardDeps, call, decision),
    ...(exclusives.some(Boolean)
      ? {
          itemExclusive: exclusives.map((x) =>
            x ? { key: x.key, staleBefore: new Date(deps.now() - x.staleAfterMs) } : undefined,
          ),
        }
      : {}),
  };
  let admitted: Awaited<ReturnType<JobStore['admitCampaign']>>;
  try {
    admitted = await deps.jobs.admitCampaign(intents, rules, evaluateCampaignAdmission);
  } catch (err) {
    // The transaction may have committed with its answer lost (a connection cut at COMMIT): release every item
    // still queued, as a single call releases its intent (pipeline.ts `admitOrRelease`), so no sweep sends what
    // the agent is told failed. The release is a compare-and-set: an item a sweeper already claimed stays its.
    for (const item of await deps.jobs.campaignItems(id).catch(() => [])) {
      if (item.outcome !== 'queued') continue;
      await deps.jobs
        .claimCampaignItem(item.id, {
          outcome: 'rejected',
          status: 'failed',
          reason: 'The store did not confirm the admission; nothing was sent.',
        })
        .catch(() => undefined);
    }
    throw err;
  }
  if (!admitted.admitted) {
    if (admitted.reason === 'exclusive' && admitted.item !== undefined) {
      // An item's key is held (upscale: an attempt for its video started since the quote): its tool's refusal.
      const refuse = exclusives[admitted.item]?.refuse;
      if (refuse) return { error: atItem(admitted.item, refuse(admitted.record, deps.owner)) };
    }
    if (admitted.reason === 'token_used' || admitted.reason === 'exclusive') {
      // Verified, but another call redeemed the token first: quote again.
      const expected = {
        tool: call.tool,
        fingerprint: decision.fingerprint,
        credits: campaign.estimate.credits,
        owner: deps.owner,
        allowDuplicate: call.allowDuplicate,
      };
      const gd = { ...guardDeps, jobs: deps.jobs, tokenTtlMs: deps.tokenTtlMs ?? TOKEN_TTL_MS };
      return { envelope: await confirmationRequired(gd, call, expected, undefined, TOKEN_ALREADY_USED) };
    }
    return { error: refusalError('create_campaign', admitted) };
  }
  deps.onStep?.('after_admit');
  deps.log.info('campaign admitted', { campaign: id, items: total, credits: campaign.estimate.credits });
  void sendCampaign(id, campaign.itemSpec, ctx, deps).catch((err) =>
    deps.log.error('campaign sender stopped; a later sweep resumes it', { campaign: id, error: String(err) }),
  );
  return { envelope: admittedEnvelope(id, total, campaign.estimate) };
}

/** Two identical items of one campaign (`firstIdenticalItem`): refused before anything is quoted or sent. */
export function identicalItemsError(twin: { repeat: number; of: number }): UserInputError {
  return new UserInputError(
    `items[${twin.repeat}]`,
    `is identical to items[${twin.of}] (same tool and request): both would be made and charged; vary a field or remove it, or call with allow_duplicate: true to make several takes of the same on purpose`,
  );
}

/** An item's UserInputError renamed to `items[i].<field>` (what the agent passed); anything else as it is. */
export function atItem(index: number, err: unknown): unknown {
  if (!(err instanceof UserInputError)) return err;
  return new UserInputError(`items[${index}]${err.field ? `.${err.field}` : ''}`, err.rule, err.nextStep);
}

/**
 * An item's own fingerprint is its tool's (the duplicate guard then treats a campaign item and an identical
 * single call as the same job). Computed by the store layer's caller, like a single call's.
 */
export function itemFingerprint(item: CampaignItem): string {
  return fingerprintOf(item.tool, item.request);
}

function admittedEnvelope(id: string, total: number, estimate: Estimate): JobEnvelope {
  const handle = `${CAMPAIGN_HANDLE_PREFIX}${id}`;
  return {
    status: 'submitted',
    handle,
    kind: 'campaign',
    estimate,
    details: { campaign: id, items: total, done: 0 },
    next_step: `Campaign admitted: ${total} items are being sent one by one. Call wait_for_jobs with handles ${JSON.stringify([handle])} (or get_job) for "k of ${total} done" and each item's status and outputs.`,
  };
}

export interface SenderDeps {
  jobs: JobStore;
  log: Logger;
  now: () => number;
  onStep?: BillingDeps['onStep'];
}

/**
 * Sends a campaign's queued items, in index order, each at most once: release it if its window ended, else
 * claim it (queued → pending, compare-and-set) and POST it through its own tool's `run()` with the request
 * stored at admission. Safe to run in several processes at once: only the claim's winner sends.
 * @returns how many items this run POSTed.
 */
export async function sendCampaign(
  campaignId: string,
  itemSpec: CampaignCall['itemSpec'],
  ctx: ToolContext,
  deps: SenderDeps,
): Promise<number> {
  let posted = 0;
  for (const item of await deps.jobs.campaignItems(campaignId)) {
    if (item.outcome !== 'queued' || !item.campaign) continue;
    if (Date.parse(item.campaign.sendBy) <= deps.now()) {
      await deps.jobs.claimCampaignItem(item.id, { outcome: 'rejected', status: 'failed', reason: RELEASED_REASON });
      continue;
    }
    const spec = itemSpec(item.tool);
    const rec = await deps.jobs.claimCampaignItem(item.id, { outcome: 'pending' });
    if (!rec?.campaign) continue;
    if (!spec) {
      // Cannot happen for items this code admitted; fail closed: nothing sent, reservation returned.
      await deps.jobs.settle(rec.id, { outcome: 'rejected', status: 'failed', reason: `unknown tool ${rec.tool}` });
      continue;
    }
    await sendItem(rec, spec, ctx, deps);
    posted++;
  }
  return posted;
}

async function sendItem(
  rec: JobRecord,
  spec: BillableToolSpec<z.ZodRawShape>,
  ctx: ToolContext,
  deps: SenderDeps,
): Promise<void> {
  const info = rec.campaign!;
  // Local files are staged now, right before the POST, as for a single call (src/files/staging.ts): the bytes
  // must still be the consented ones, else the item fails unsent and its reservation is returned.
  let staged: StagedRequest | undefined;
  if (info.files && info.files.length > 0) {
    try {
      const stager = stagerFor(ctx.config, ctx.files?.selfStager);
      if (!stager) throw new UserInputError(info.files[0]!.field, 'no staging bucket is configured any more');
      const files = new Map<string, ResolvedMedia>();
      for (const f of info.files) files.set(f.placeholder, await reopen(f, ctx));
      staged = await stageRequest(info.request as PlatformRequest, files, stager, deps.log, rec.id);
    } catch (err) {
      await settleFailure(
        rec,
        err instanceof UserInputError ? err : new StagingError(err),
        rec.kind,
        rec.estimate,
        deps,
      );
      return;
    }
  }
  let sub: Awaited<ReturnType<typeof spec.run>>;
  try {
    sub = await spec.run(
      info.input as never,
      { ...ctx, signal: NEVER_ABORTS },
      (staged?.request ?? info.request) as never,
    );
  } catch (err) {
    staged?.release(mayHaveBeenAccepted(err));
    await settleFailure(rec, err, rec.kind, rec.estimate, deps);
    return;
  }
  staged?.release(true, sub.status === 'completed');
  deps.onStep?.('campaign_item_posted');
  await settleSubmission(rec, sub, rec.estimate, deps);
}

/**
 * An item's file as the stager reads it: the local path, or the upload opened again in the shared store for the
 * caller who quoted it. @throws UserInputError naming the field when the upload is gone (nothing sent).
 */
async function reopen(f: CampaignItemFile, ctx: ToolContext): Promise<ResolvedMedia> {
  const { placeholder: _p, ...facts } = f;
  if (facts.source !== 'upload') return { ...facts, source: 'path' };
  const upload = await ctx.files?.uploads.open(facts.uploadId, facts.owner);
  if (!upload) throw new UserInputError(f.field, 'the upload is gone (expired or deleted) since the quote');
  return { ...facts, id: facts.uploadId, upload };
}

/** Campaigns with queued items, each sent by whoever holds its lease (one instance of a fleet at a time). */
export async function sweepCampaigns(
  itemSpec: CampaignCall['itemSpec'],
  ctx: ToolContext,
  deps: SenderDeps & { holder: string; leaseMs: number },
): Promise<number> {
  let posted = 0;
  for (const id of await deps.jobs.queuedCampaigns()) {
    if (!(await deps.jobs.tryLease(`${CAMPAIGN_HANDLE_PREFIX}${id}`, deps.leaseMs, deps.holder))) continue;
    posted += await sendCampaign(id, itemSpec, ctx, deps);
  }
  return posted;
}
