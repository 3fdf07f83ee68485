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
import type { CampaignItemFile, ConsentedFor, JobPatch, JobRecord, JobStore } from '../jobs/store.js';
import type { Logger } from '../log.js';
import { evaluateCampaignAdmission } from './admission.js';
import { failedAdmission, notAdmitted, type ReleaseOutcome } from './admission-answer.js';
import type { BillingDeps, PaidCallResult } from './call-types.js';
import { consentedFor, mayNotSend } from './consented-for.js';
import { fingerprint as fingerprintOf } from './fingerprint.js';
import { admitRules, confirmationRequired, type GuardDecision, type GuardRequest } from './guard.js';
import { settleFailure, settleSubmission } from './settle.js';
import { TOKEN_TTL_MS } from './token.js';
import {
  admissionUnknownWords,
  CostRefusedError,
  duplicateRefusal,
  RELEASED_UNCONFIRMED,
  refusalError,
  TOKEN_ALREADY_USED,
} from './wording.js';

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
  // Who consented each item to what: a sweep in a process with another key or base URL sends none of it.
  let mine: ConsentedFor;
  try {
    mine = await consentedFor(deps.config, deps.jobs);
  } catch (err) {
    return { error: notAdmitted(err, 'campaign', deps.log) };
  }
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
      consentedFor: mine,
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
  deps.onStep?.('before_admit');
  let admitted: Awaited<ReturnType<JobStore['admitCampaign']>>;
  try {
    admitted = await deps.jobs.admitCampaign(intents, rules, evaluateCampaignAdmission);
  } catch (err) {
    // Not seen admitted, so never sent from here, and no sweep sends an unacknowledged item: the truth is "not
    // admitted" or, while the store cannot say, "may have been admitted; follow the handle" (admission-answer.ts).
    const failed = await failedAdmission(err, 'campaign', () => releaseUnacknowledged(deps.jobs, id), deps.log);
    if (failed.kind === 'not_admitted') return { error: failed.error };
    const handle = `${CAMPAIGN_HANDLE_PREFIX}${id}`;
    return {
      envelope: {
        status: 'unknown',
        handle,
        kind: 'campaign',
        estimate: campaign.estimate,
        details: { campaign: id, items: total, done: 0 },
        ...admissionUnknownWords(handle, 'campaign'),
      },
    };
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
  // The COMMIT was answered: mark every item acknowledged, the only items a sweep (a restart, another instance)
  // may send. A process killed before the mark answered the agent nothing either: its items are released.
  deps.onStep?.('campaign_admitted');
  await acknowledge(deps, id, admitted.records);
  deps.onStep?.('after_admit');
  deps.log.info('campaign admitted', { campaign: id, items: total, credits: campaign.estimate.credits });
  const sender = { ...deps, mine, readOnly: deps.config.readOnly, acknowledged: true };
  void sendCampaign(id, campaign.itemSpec, ctx, sender).catch((err) =>
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

/**
 * Before an item is priced (issue 27): what its admission would refuse is refused now, so no quote is offered
 * (and no slow platform quote is asked) for a campaign that cannot be admitted. An item identical to a job or a
 * campaign item still active (the duplicate rule: not with `allow_duplicate`), or acting on what an active job
 * holds (its tool's `beforeAdmit`: upscale, an attempt for that video, re-read first so a finished one stops
 * blocking). Plain reads; `admitCampaign` checks again under its lock.
 * @throws the refusal (a duplicate names `items[index]`).
 */
export async function refuseWhatAdmissionWould(
  index: number,
  spec: BillableToolSpec<z.ZodRawShape>,
  input: Record<string, unknown>,
  request: PlatformRequest,
  ctx: ToolContext,
): Promise<void> {
  if (!ctx.allowDuplicate) {
    const fingerprint = fingerprintOf(spec.name, request);
    const rules = admitRules(
      { config: ctx.config, now: Date.now },
      { owner: ctx.owner, allowDuplicate: false },
      {
        fingerprint,
      },
    );
    const { duplicate } = await ctx.jobs.readAdmissionFacts({ ...rules, user: undefined });
    if (duplicate) {
      const err = duplicateRefusal(spec.name, duplicate);
      throw new CostRefusedError('duplicate', `Campaign item ${index} (items[${index}]): ${err.message}`, err.nextStep);
    }
  }
  // Its UserInputError is renamed `items[index].<field>` by the caller (create_campaign's prepareItem).
  await spec.billable.beforeAdmit?.(input as never, ctx);
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

/**
 * How long a campaign item may stay unacknowledged (admitted, its admitting call never saw the COMMIT answered)
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
  /** Sweeps: the campaign's lease, taken before its first claim (releases need none). */
  lease?: (() => Promise<boolean>) | undefined;
  /** Sweeps: campaigns whose refusal was already logged (once per campaign per process). */
  told?: Set<string> | undefined;
}

/**
 * Sends a campaign's queued items, in index order, each at most once: release it if its window ended or its
 * admission was never acknowledged (after `UNACKNOWLEDGED_GRACE_MS`), skip it if this process may not send it
 * (read-only, another account or base URL: logged once), else claim it (queued → pending, compare-and-set) and
 * POST it through its own tool's `run()` with the request stored at admission. Safe to run in several processes
 * at once: only the claim's winner sends.
 * @returns how many items this run POSTed.
 */
export async function sendCampaign(
  campaignId: string,
  itemSpec: CampaignCall['itemSpec'],
  ctx: ToolContext,
  deps: SenderDeps,
): Promise<number> {
  let posted = 0;
  let leased = deps.lease === undefined;
  for (const item of await deps.jobs.campaignItems(campaignId)) {
    if (item.outcome !== 'queued' || !item.campaign) continue;
    if (Date.parse(item.campaign.sendBy) <= deps.now()) {
      await deps.jobs.claimCampaignItem(item.id, { outcome: 'rejected', status: 'failed', reason: RELEASED_REASON });
      continue;
    }
    if (!deps.acknowledged && item.acknowledgedAt === undefined) {
      // The agent was told "unknown" or nothing (a lost answer, a process killed before the mark): never sent.
      if (Date.parse(item.createdAt) + UNACKNOWLEDGED_GRACE_MS <= deps.now()) {
        await deps.jobs.claimCampaignItem(item.id, released());
      }
      continue;
    }
    const why = mayNotSend(item.campaign, deps.mine, deps.readOnly);
    if (why) {
      if (!deps.told?.has(campaignId)) deps.log.warn('campaign items left unsent here', { campaign: campaignId, why });
      deps.told?.add(campaignId);
      continue;
    }
    if (!leased) {
      // Another instance holds this campaign: it sends the rest.
      leased = await deps.lease!();
      if (!leased) return posted;
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

/** The release of an item whose admission its call never saw (compare-and-set: only while still queued). */
function released(): JobPatch {
  return { outcome: 'rejected', status: 'failed', reason: RELEASED_UNCONFIRMED };
}

/**
 * After a lost COMMIT answer: every still-queued item of the campaign released (compare-and-set, so an item a
 * sweeper claimed stays its; none can be, unacknowledged). @throws while the store is unreachable.
 */
async function releaseUnacknowledged(jobs: JobStore, id: string): Promise<ReleaseOutcome> {
  const items = await jobs.campaignItems(id);
  if (items.length === 0) return 'absent';
  let kept = false;
  for (const item of items) {
    if (item.outcome === 'queued' && (await jobs.claimCampaignItem(item.id, released()))) continue;
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
async function acknowledge(deps: Pick<BillingDeps, 'jobs' | 'log' | 'now'>, id: string, records: JobRecord[]) {
  const acknowledgedAt = new Date(deps.now()).toISOString();
  for (const rec of records) {
    await deps.jobs.claimCampaignItem(rec.id, { acknowledgedAt }).catch((err: unknown) =>
      deps.log.warn('campaign item not marked acknowledged; a sweep will release it unsent', {
        campaign: id,
        error: String(err),
      }),
    );
  }
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

/**
 * Campaigns with queued items, each sent by whoever holds its lease (one instance of a fleet at a time), taken
 * only when this process has an item to send: a read-only or other-account process never holds it.
 */
export async function sweepCampaigns(
  itemSpec: CampaignCall['itemSpec'],
  ctx: ToolContext,
  deps: Omit<SenderDeps, 'lease' | 'acknowledged'> & { holder: string; leaseMs: number },
): Promise<number> {
  let posted = 0;
  for (const id of await deps.jobs.queuedCampaigns()) {
    const lease = () => deps.jobs.tryLease(`${CAMPAIGN_HANDLE_PREFIX}${id}`, deps.leaseMs, deps.holder);
    posted += await sendCampaign(id, itemSpec, ctx, { ...deps, lease });
  }
  return posted;
}
