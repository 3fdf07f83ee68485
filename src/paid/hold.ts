/**
 * A paid call held for approval (issue 28 item 5): after the requester's consent, the approval policy
 * (GENPLAT_APPROVALS, src/approvals/evaluate.ts) is asked whether the call needs someone else's approval first.
 *
 *   impossible → refused, naming the rule; nothing written or sent.
 *   approval   → ONE admission (`store.admitBundle`: the same ceilings, duplicate rules, exclusive keys and
 *                token nonce as an unheld call, so the quote is reserved and the token cannot be used again) with
 *                every item `queued` and `held` (`reason: 'approval:<id>'`), marked acknowledged, then the approval
 *                (`store.createApproval`) with the exact request, fingerprint, quote and consent card. The answer
 *                is `approval_required` with the handle `approval:<id>`. Nothing is sent: no claim takes a held
 *                item. If the approval cannot be written, the held items are released (nothing sent).
 *
 * A single call is held as a bundle of one (its record carries the stored request like a campaign item, so any
 * instance can send it later); a campaign as its N items. What happens once the approval closes is
 * approval-send.ts. Over stdio a call the policy would hold is refused: there is no proven requester, and no
 * second proven person could approve it.
 *
 * Domain code: no MCP SDK import.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { approvalNeeded } from '../approvals/evaluate.js';
import { approvalHandle, newApprovalId } from '../approvals/handle.js';
import { approvalLink } from '../approvals/page/link.js';
import { approvalPageSettings } from '../approvals/page/settings.js';
import { approvalRequiredText, cannotBeApprovedText } from '../approvals/wording.js';
import type { BillableToolSpec, CampaignItem, CampaignItemFile, ToolContext } from '../define-tool.js';
import type { JobEnvelope } from '../jobs/envelope.js';
import type { JobRecord } from '../jobs/store.js';
import { personEntry } from '../people/same-person.js';
import { evaluateBundleOfOne, evaluateCampaignAdmission } from './admission.js';
import { failedAdmission, notAdmitted } from './admission-answer.js';
import { logBudgetAlerts } from './budget-alerts.js';
import { budgetPerson } from './budgets.js';
import type { BillingDeps, PaidCallResult } from './call-types.js';
import { ownerNameOf } from './call-types.js';
import { itemFingerprint } from './campaign.js';
import { consentCard } from './consent-card.js';
import { consentedFor } from './consented-for.js';
import { admitRules, type GuardDecision, type GuardRequest, refusalError } from './guard.js';
import { acknowledge, release, releaseUnacknowledged } from './outbox.js';
import type { PreparedCall } from './prepare.js';
import { TOKEN_TTL_MS } from './token.js';
import { traceAdmission } from './traced-steps.js';
import {
  ApprovalRefusedError,
  approvalNextStep,
  CANNOT_BE_APPROVED_NEXT,
  RELEASED_UNCONFIRMED,
  STDIO_NEEDS_APPROVAL,
  STDIO_NEEDS_APPROVAL_NEXT,
} from './wording.js';

/** What the approval stores as `request` (opaque to the store). The read side relies on these names. */
export interface HeldRequest {
  bundleId: string;
  itemIds: string[];
  kind: 'call' | 'campaign';
  tool: string;
  /** The consented arguments (a campaign: the create_campaign arguments). */
  input: Record<string, unknown>;
  fingerprint: string;
  estimate: PreparedCall['estimate'];
  card: ReturnType<typeof consentCard>;
}

/** The reason a held item carries: which approval it waits for. */
export const heldReason = (approvalId: string) => `approval:${approvalId}`;

export interface HoldInput {
  spec: BillableToolSpec<z.ZodRawShape>;
  prepared: PreparedCall;
  /** A campaign's items; undefined for a single call. */
  items?: CampaignItem[] | undefined;
  itemSpec?: ((tool: string) => BillableToolSpec<z.ZodRawShape> | undefined) | undefined;
}

/**
 * @returns the answer when the policy holds or refuses the call, undefined when no approval is needed (the
 * caller admits and sends as before).
 */
export async function holdIfPolicyAsks(
  hold: HoldInput,
  call: GuardRequest,
  decision: Extract<GuardDecision, { kind: 'allow' }>,
  ctx: ToolContext,
  deps: BillingDeps,
): Promise<PaidCallResult | undefined> {
  const policy = deps.config.approvals;
  if (!policy) return undefined;
  const { estimate } = hold.prepared;
  const requester = deps.owner ?? '';
  const credits = estimate.bounded ? estimate.credits : null;
  const guardDeps = { config: deps.config, now: deps.now };
  const facts = await deps.jobs.readAdmissionFacts({
    ...admitRules(guardDeps, { owner: deps.owner, teams: deps.teams, allowDuplicate: true }, { fingerprint: '' }),
    unsettled: undefined,
    // The person's day spend, over all their ids (the people file's `also`): an alias must not start from zero.
    user: {
      owner: requester,
      owners: budgetPerson(deps.config, requester).ids,
      maxCreditsPerDay: Number.POSITIVE_INFINITY,
    },
  });
  const need = approvalNeeded(
    policy,
    {
      requester,
      tool: call.tool,
      itemTools: hold.items ? [...new Set(hold.items.map((i) => i.tool))] : undefined,
      credits,
      daySpendAfter: credits === null ? null : (facts.spentByOwner ?? 0) + credits,
      requesterGroups: personEntry(deps.config.people, requester)?.groups ?? [],
    },
    deps.config.people,
  );
  if (!need) return undefined;
  if (deps.owner === undefined)
    return { error: new ApprovalRefusedError(STDIO_NEEDS_APPROVAL, STDIO_NEEDS_APPROVAL_NEXT) };
  const nameOf = (id: string) => deps.config.people.get(id)?.name;
  if (need.kind === 'impossible') {
    return { error: new ApprovalRefusedError(cannotBeApprovedText(need, nameOf), CANNOT_BE_APPROVED_NEXT) };
  }
  return admitHeld(hold, call, decision, ctx, deps, need, nameOf);
}

async function admitHeld(
  hold: HoldInput,
  call: GuardRequest,
  decision: Extract<GuardDecision, { kind: 'allow' }>,
  ctx: ToolContext,
  deps: BillingDeps,
  need: Extract<NonNullable<ReturnType<typeof approvalNeeded>>, { kind: 'approval' }>,
  nameOf: (id: string) => string | undefined,
): Promise<PaidCallResult> {
  const { prepared } = hold;
  const campaign = hold.items !== undefined;
  const items: CampaignItem[] = hold.items ?? [
    {
      tool: hold.spec.name,
      input: call.input ?? {},
      request: prepared.request,
      estimate: prepared.estimate,
      kind: prepared.kind,
      summary: prepared.summary,
      ...(prepared.files.size > 0 ? { files: keptFiles(prepared.files, deps.owner) } : {}),
    } as CampaignItem,
  ];
  const specOf = (tool: string) => (campaign ? hold.itemSpec?.(tool) : hold.spec);
  // Free reads the admission depends on, outside any transaction, as an unheld call does.
  for (const item of items) await specOf(item.tool)?.billable.beforeAdmit?.(item.input as never, ctx);
  const exclusives = items.map((item) => specOf(item.tool)?.billable.exclusive?.(item.input as never));
  let mine: Awaited<ReturnType<typeof consentedFor>>;
  try {
    mine = await consentedFor(deps.config, deps.jobs);
  } catch (err) {
    return { error: notAdmitted(err, campaign ? 'campaign' : 'call', deps.log) };
  }
  const approvalId = newApprovalId();
  const bundleId = randomUUID();
  const now = deps.now();
  const expiresAt = now + need.expiresInMs;
  const since = new Date(now).toISOString();
  // A held item is never released for its consent window while it waits. The window (`sendBy`) is fixed at
  // admission (the store refuses to change `campaign`), so it is the approval's expiry plus a whole consent
  // window: an approval taken at any moment before expiry leaves at least that window to send it in.
  const sendBy = new Date(expiresAt + (deps.tokenTtlMs ?? TOKEN_TTL_MS)).toISOString();
  const intents = items.map((item, index) => ({
    outcome: 'queued' as const,
    id: randomUUID(),
    tool: item.tool,
    kind: item.kind,
    fingerprint: campaign ? itemFingerprint(item) : decision.fingerprint,
    summary: item.summary,
    estimate: item.estimate,
    consent: decision.consent,
    owner: deps.owner,
    ...ownerNameOf(deps),
    held: { since, reason: heldReason(approvalId) },
    ...(exclusives[index] ? { exclusiveKey: exclusives[index].key } : {}),
    campaign: {
      id: bundleId,
      fingerprint: decision.fingerprint,
      index,
      total: items.length,
      input: item.input,
      request: item.request,
      varied: item.varied ?? [],
      sendBy,
      consentedFor: mine,
      ...(item.files ? { files: item.files } : {}),
    },
  }));
  const staleBefore = (ms: number) => new Date(now - ms);
  const base = admitRules(guardDeps(deps), call, decision);
  const rules = campaign
    ? {
        ...base,
        ...(exclusives.some(Boolean)
          ? {
              itemExclusive: exclusives.map((x) =>
                x ? { key: x.key, staleBefore: staleBefore(x.staleAfterMs) } : undefined,
              ),
            }
          : {}),
      }
    : {
        ...base,
        ...(exclusives[0]
          ? { exclusive: { key: exclusives[0].key, staleBefore: staleBefore(exclusives[0].staleAfterMs) } }
          : {}),
      };
  deps.onStep?.('before_admit');
  let admitted: Awaited<ReturnType<BillingDeps['jobs']['admitBundle']>>;
  try {
    admitted = await traceAdmission(() =>
      deps.jobs.admitBundle(intents as never, rules, campaign ? evaluateCampaignAdmission : evaluateBundleOfOne),
    );
  } catch (err) {
    // Never seen admitted: released (or left unacknowledged, which no sweep sends); no approval was written.
    const failed = await failedAdmission(
      err,
      campaign ? 'campaign' : 'call',
      () => releaseUnacknowledged(deps.jobs, bundleId),
      deps.log,
    );
    return { error: failed.kind === 'not_admitted' ? failed.error : notAdmitted(err, 'call', deps.log) };
  }
  logBudgetAlerts(deps.log, admitted);
  if (!admitted.admitted) {
    if (admitted.reason === 'exclusive') {
      const refuse = exclusives[admitted.item ?? 0]?.refuse;
      if (refuse) return { error: refuse(admitted.record, deps.owner) };
    }
    return { error: refusalError(call.tool, admitted as never) };
  }
  await acknowledge(deps, bundleId, admitted.records);
  const card = consentCard({
    tool: call.tool,
    body: prepared.request.body,
    estimate: prepared.estimate,
    summary: prepared.summary,
  });
  const request: HeldRequest = {
    bundleId,
    itemIds: admitted.records.map((r) => r.id),
    kind: campaign ? 'campaign' : 'call',
    tool: call.tool,
    input: call.input ?? {},
    fingerprint: decision.fingerprint,
    estimate: prepared.estimate,
    card,
  };
  try {
    await deps.jobs.createApproval({
      id: approvalId,
      requester: deps.owner!,
      requesterName: nameOf(deps.owner!),
      tool: call.tool,
      request,
      requirements: need.requirements,
      approvers: need.approvers,
      rules: need.rules,
      ...(campaign ? { campaignId: bundleId } : {}),
      quoteCredits: prepared.estimate.bounded ? prepared.estimate.credits : null,
      createdAt: now,
      expiresAt,
    });
  } catch (err) {
    // No approval means nobody could ever send these: released now (nothing sent, reservation returned).
    await releaseAll(deps, admitted.records);
    return { error: notAdmitted(err, campaign ? 'campaign' : 'call', deps.log) };
  }
  deps.log.info('paid call held for approval', {
    approval: approvalId,
    items: items.length,
    credits: prepared.estimate.credits,
  });
  const link = await pageLink(deps, approvalId, expiresAt);
  const handle = approvalHandle(approvalId);
  const envelope: JobEnvelope = {
    status: 'approval_required',
    handle,
    kind: prepared.kind,
    estimate: prepared.estimate,
    expires_at: new Date(expiresAt).toISOString(),
    reason: approvalRequiredText(need, nameOf),
    details: {
      approval: approvalId,
      approvers: need.approvers.map((id) => ({ id, ...(nameOf(id) ? { name: nameOf(id) } : {}) })),
      rules: [...need.rules],
      ...(campaign ? { campaign: bundleId, items: items.length } : {}),
      ...(link ? { approval_page: link } : {}),
    },
    next_step: approvalNextStep(handle, link),
  };
  return { envelope };
}

const guardDeps = (deps: BillingDeps) => ({ config: deps.config, now: deps.now });

async function releaseAll(deps: BillingDeps, records: JobRecord[]): Promise<void> {
  for (const rec of records) {
    const now = (await deps.jobs.get(rec.id).catch(() => undefined)) ?? rec;
    await release(deps.jobs, now, RELEASED_UNCONFIRMED).catch((err: unknown) =>
      deps.log.warn('held item not released; it is released when its window ends', { error: String(err) }),
    );
  }
}

/** The approval page's link, when the page is on (GENPLAT_PUBLIC_URL and the page's sign-in configured). */
async function pageLink(deps: BillingDeps, approvalId: string, expiresAt: number): Promise<string | undefined> {
  const page = approvalPageSettings(deps.config);
  if (!page.on) return undefined;
  try {
    return approvalLink(page.publicUrl, approvalId, expiresAt, await deps.jobs.consentKey());
  } catch {
    return undefined;
  }
}

/** A single call's local files as a held item keeps them (as bundle.ts keeps a campaign item's). */
function keptFiles(files: PreparedCall['files'], owner: string | undefined): CampaignItemFile[] {
  return [...files].map(([placeholder, m]) => {
    const { field, filename, size, contentType, sha256 } = m;
    const where =
      m.source === 'path'
        ? { source: 'path' as const, path: m.path, fileId: m.fileId }
        : { source: 'upload' as const, uploadId: m.id, owner };
    return { placeholder, field, filename, size, contentType, sha256, ...where } as CampaignItemFile;
  });
}
