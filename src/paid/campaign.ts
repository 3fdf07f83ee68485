/**
 * Campaigns (issue 21): many paid items, one quote, one consent, one admission, each item POSTed at most once.
 *
 *   items (each through its own tool's prepareCall) → guardCall once (total; every consent carrier) →
 *   store.admitBundle (one transaction: every item `queued`, or nothing) → outbox.ts `sendBundle` (per item:
 *   claim queued → pending, then send.ts `sendItem`, the one send a single call uses too)
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
import { UserInputError } from '../errors.js';
import { CAMPAIGN_HANDLE_PREFIX } from '../jobs/campaign-view.js';
import type { Estimate, JobEnvelope } from '../jobs/envelope.js';
import type { ConsentedFor, JobRecord, JobStore } from '../jobs/store.js';
import { metrics } from '../telemetry/metrics.js';
import { type AdmitRefusal, evaluateCampaignAdmission } from './admission.js';
import { failedAdmission, notAdmitted } from './admission-answer.js';
import { logBudgetAlerts } from './budget-alerts.js';
import type { BillingDeps, PaidCallResult } from './call-types.js';
import { ownerNameOf } from './call-types.js';
import { repeatAnswer, sameCampaign } from './campaign-repeat.js';
import { consentedFor } from './consented-for.js';
import { fingerprint as fingerprintOf } from './fingerprint.js';
import { admitRules, confirmationRequired, type GuardDecision, type GuardRequest } from './guard.js';
import { acknowledge, type ItemSpecs, releaseUnacknowledged, sendBundle } from './outbox.js';
import { TOKEN_TTL_MS } from './token.js';
import { traceAdmission } from './traced-steps.js';
import {
  admissionUnknownWords,
  CostRefusedError,
  campaignAdmittedNextStep,
  duplicateRefusal,
  itemDuplicateMessage,
  refusalError,
  TOKEN_ALREADY_USED,
} from './wording.js';

export const MAX_CAMPAIGN_ITEMS = 50;

export interface CampaignCall {
  items: CampaignItem[];
  estimate: Estimate;
  itemSpec: ItemSpecs;
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
  // Every item waits in the outbox (`queued`) until its claim: this call's sender, or a sweep, sends it.
  const intents = campaign.items.map((item, index) => ({
    outcome: 'queued' as const,
    id: randomUUID(),
    tool: item.tool,
    kind: item.kind,
    fingerprint: itemFingerprint(item),
    summary: item.summary,
    estimate: item.estimate,
    consent: decision.consent,
    owner: deps.owner,
    ...ownerNameOf(deps),
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
  let admitted: Awaited<ReturnType<JobStore['admitBundle']>>;
  try {
    admitted = await traceAdmission(() => deps.jobs.admitBundle(intents, rules, evaluateCampaignAdmission));
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
  logBudgetAlerts(deps.log, admitted);
  if (!admitted.admitted) {
    // Two confirms of one campaign at once (a double click): the other one was admitted first.
    const repeat = await admittedTwin(admitted, decision.fingerprint, call.owner, deps);
    if (repeat !== undefined) return { envelope: await repeatAnswer(repeat, ctx), repeat: true };
    metrics.admissionRefused(call.tool, admitted.reason);
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
  void sendBundle(id, campaign.itemSpec, ctx, sender).catch((err) =>
    deps.log.error('campaign sender stopped; a later sweep resumes it', { campaign: id, error: String(err) }),
  );
  return { envelope: admittedEnvelope(id, total, campaign.estimate) };
}

/**
 * The campaign this call's twin admitted, when the admission refused the call for it: as a duplicate of one of its
 * items, or its token as spent (then the active campaign with this fingerprint, if any, is the twin's).
 */
async function admittedTwin(
  refused: AdmitRefusal,
  fingerprint: string,
  owner: string | undefined,
  deps: Pick<BillingDeps, 'config' | 'jobs' | 'now'>,
): Promise<string | undefined> {
  if (refused.reason === 'duplicate') return sameCampaign(refused.record, fingerprint);
  if (refused.reason !== 'token_used') return undefined;
  const rules = admitRules(deps, { owner, allowDuplicate: false }, { fingerprint });
  const { duplicate } = await deps.jobs.readAdmissionFacts({ ...rules, user: undefined });
  return sameCampaign(duplicate, fingerprint);
}

/**
 * Before an item is priced (issue 27): what its admission would refuse is refused now, so no quote is offered
 * (and no slow platform quote is asked) for a campaign that cannot be admitted. An item identical to a job or a
 * campaign item still active (the duplicate rule: not with `allow_duplicate`), or acting on what an active job
 * holds (its tool's `beforeAdmit`: upscale, an attempt for that video, re-read first so a finished one stops
 * blocking). Plain reads; `admitBundle` checks again under its lock.
 * @throws the refusal (a duplicate names `items[index]`).
 */
export async function refuseWhatAdmissionWould(
  index: number,
  spec: BillableToolSpec<z.ZodRawShape>,
  input: Record<string, unknown>,
  request: PlatformRequest,
  ctx: ToolContext,
  allowDuplicate: boolean,
): Promise<void> {
  if (!allowDuplicate) {
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
      throw new ItemDuplicateError(duplicate, itemDuplicateMessage(index, err.message), err.nextStep);
    }
  }
  // Its UserInputError is renamed `items[index].<field>` by the caller (bundle.ts prepareItem).
  await spec.billable.beforeAdmit?.(input as never, ctx);
}

/** An item identical to an active job: the refusal, with that job (bundle.ts tells a campaign asked again). */
export class ItemDuplicateError extends CostRefusedError {
  readonly record: JobRecord;
  constructor(record: JobRecord, message: string, nextStep: string) {
    super('duplicate', message, nextStep);
    this.record = record;
  }
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
    next_step: campaignAdmittedNextStep(handle, total),
  };
}
