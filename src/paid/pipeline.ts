/**
 * The paid call, as one short pipeline (issue 10):
 *
 *   validate → request → estimate → consent → store.admitBundle (a bundle of one) → send.ts sendItem (one POST,
 *   settle)
 *
 * A campaign is the same pipeline with a bundle of N (campaign.ts): its items wait in the outbox (outbox.ts) and
 * leave through the same sendItem. `store.admitBundle` is ONE transaction that re-checks the ceilings, the duplicate rules, the exclusive key
 * (upscale_video: one attempt per video), consumes the token's nonce and writes the intent; nothing else
 * between consent and the POST takes a lock or writes. No network call happens inside it: what a tool must
 * know from the platform first (`billable.beforeAdmit`, free GETs) is read before.
 *
 * Domain code: no MCP SDK import. The runtime passes the SDK-bound pieces in (the elicitation call, the
 * progress sender inside `ctx`) and turns the result into a `CallToolResult`.
 */
import { randomUUID } from 'node:crypto';
import { type CampaignItem, isBundle, type PaidToolSpec, type ToolContext } from '../define-tool.js';
import { filesDeps } from '../files/files-deps.js';
import type { JobEnvelope } from '../jobs/envelope.js';
import { encodeHandle } from '../jobs/handle.js';
import type { JobStore } from '../jobs/store.js';
import { stepReached } from '../kill-steps.js';
import { metrics } from '../telemetry/metrics.js';
import { evaluateBundleOfOne } from './admission.js';
import { failedAdmission } from './admission-answer.js';
import { logBudgetAlerts } from './budget-alerts.js';
import { prepareBundle } from './bundle.js';
import type { BillingDeps, PaidCallArgs, PaidCallResult } from './call-types.js';
import { ownerNameOf } from './call-types.js';
import { admitCampaignCall } from './campaign.js';
import { repeatAnswer } from './campaign-repeat.js';
import { consentCard } from './consent-card.js';
import { admitRules, confirmationRequired, guardCall, refusalError } from './guard.js';
import { holdIfPolicyAsks } from './hold.js';
import { release } from './outbox.js';
import { type PreparedCall, prepareCall } from './prepare.js';
import { sendItem } from './send.js';
import { traceAdmission, traceConsent, traceQuote } from './traced-steps.js';
import { admissionUnknownWords, RELEASED_UNCONFIRMED, TOKEN_ALREADY_USED } from './wording.js';

export type { BillingDeps, PaidCallArgs, PaidCallResult, PaidResult } from './call-types.js';

/**
 * Runs one billable call to its end. Throws only what happens before anything was written (bad input,
 * store unreadable): the runtime reports it as an error, and nothing was sent.
 */
export async function runPaidCall(
  paid: PaidToolSpec,
  args: PaidCallArgs,
  ctx: ToolContext,
  deps: BillingDeps,
): Promise<PaidCallResult> {
  const raw = args.input;
  const files = filesDeps(deps.config, { roots: deps.roots, uploads: deps.uploads, selfStager: deps.selfStager });
  if (isBundle(paid)) {
    const bundle = await traceQuote(paid.name, () =>
      prepareBundle(paid, raw, ctx, deps, { files, allowDuplicate: args.allowDuplicate }),
    );
    if ('repeatOf' in bundle) return { envelope: await repeatAnswer(bundle.repeatOf, ctx), repeat: true };
    return consentAndAdmit(paid, { ...bundle, files: new Map() }, args, ctx, deps, bundle.items);
  }
  const prepared = await traceQuote(paid.name, () => prepareCall(paid, raw, ctx, { files, owner: deps.owner }));
  return consentAndAdmit(paid, prepared, args, ctx, deps);
}

/**
 * Consent (one guard for a single call and a bundle: the total), then admission: a bundle of N through
 * campaign.ts (its items wait in the outbox), a bundle of one here, sent at once by this call.
 */
async function consentAndAdmit(
  paid: PaidToolSpec,
  { request, files, estimate, kind, summary }: PreparedCall,
  args: PaidCallArgs,
  ctx: ToolContext,
  deps: BillingDeps,
  items?: CampaignItem[],
): Promise<PaidCallResult> {
  const raw = args.input;
  const guardDeps = { config: deps.config, jobs: deps.jobs, now: deps.now, tokenTtlMs: deps.tokenTtlMs };
  const call = {
    tool: paid.name,
    input: raw,
    kind,
    request,
    estimate,
    summary,
    owner: deps.owner,
    teams: deps.teams,
    token: args.token,
    allowDuplicate: args.allowDuplicate,
    carrier: args.carrier ?? 'model',
    elicit: args.elicit,
    form: args.form,
    access: deps.access,
    ...(items ? { itemCredits: items.map((i) => i.estimate.credits) } : {}),
  };

  const decision = await traceConsent(() => guardCall(guardDeps, call));
  if (decision.kind === 'refuse') return { error: decision.error };
  // The card is built from the same request, estimate and summary as the form's message (consentMessage).
  const quoted = (envelope: JobEnvelope) => ({
    envelope,
    card: consentCard({ tool: paid.name, body: request.body, estimate, summary }),
  });
  if (decision.kind === 'answer') {
    return decision.envelope.status === 'confirmation_required'
      ? quoted(decision.envelope)
      : { envelope: decision.envelope };
  }
  if (decision.kind === 'ask') return { askForm: { message: decision.message, envelope: decision.envelope } };
  // Consented by the requester; the approval policy may still hold it for someone else's approval (hold.ts).
  const held = await holdIfPolicyAsks(
    {
      spec: paid as never,
      prepared: { request, files, estimate, kind, summary },
      items,
      itemSpec: isBundle(paid) ? paid.billable.bundle.itemSpec : undefined,
    },
    call,
    decision,
    ctx,
    deps,
  );
  if (held) return held;
  if (isBundle(paid)) {
    return admitCampaignCall(
      { items: items ?? [], estimate, itemSpec: paid.billable.bundle.itemSpec },
      call,
      decision,
      ctx,
      deps,
    );
  }
  const spec = paid;
  const input = raw as never;

  // Free reads the admission depends on (upscale: re-read active attempts so a finished one stops blocking),
  // outside any transaction. @throws UserInputError to refuse early, unsent.
  await spec.billable.beforeAdmit?.(input, ctx);
  const exclusive = spec.billable.exclusive?.(input);

  deps.onStep?.('before_admit');
  // Named in advance: if the store commits the intent but its answer is lost (a connection cut at COMMIT), the
  // intent is found and released below, instead of blocking the same call as a duplicate for ever.
  const intentId = randomUUID();
  // A bundle of one, admitted already claimed (`pending`): this call sends it at once, no sweep ever does.
  const admitted = await admitOrRelease(deps, intentId, () =>
    deps.jobs.admitBundle(
      [
        {
          outcome: 'pending',
          id: intentId,
          tool: spec.name,
          kind,
          fingerprint: decision.fingerprint,
          summary,
          estimate,
          consent: decision.consent,
          owner: deps.owner,
          ...ownerNameOf(deps),
          ...(exclusive ? { exclusiveKey: exclusive.key } : {}),
        },
      ],
      admitRules(
        guardDeps,
        call,
        decision,
        exclusive ? { key: exclusive.key, staleBefore: new Date(deps.now() - exclusive.staleAfterMs) } : undefined,
      ),
      evaluateBundleOfOne,
    ),
  );
  if ('unknown' in admitted) {
    const words = admissionUnknownWords(admitted.unknown, 'call');
    return { envelope: { status: 'unknown', handle: admitted.unknown, kind, estimate, ...words } };
  }
  if (!admitted.admitted) {
    metrics.admissionRefused(spec.name, admitted.reason);
    if (admitted.reason === 'exclusive') return { error: exclusive!.refuse(admitted.record, deps.owner) };
    if (admitted.reason === 'token_used') {
      // Verified, but another call (here or in another process) redeemed it first: quote again.
      const expected = {
        tool: spec.name,
        fingerprint: decision.fingerprint,
        credits: estimate.credits,
        owner: deps.owner,
        allowDuplicate: args.allowDuplicate,
        ...(decision.duplicateOf ? { duplicateOf: decision.duplicateOf } : {}),
      };
      return quoted(await confirmationRequired(guardDeps, call, expected, undefined, TOKEN_ALREADY_USED));
    }
    return { error: refusalError(spec.name, admitted) };
  }
  const rec = admitted.records[0]!;
  deps.onStep?.('after_admit');
  deps.log.info(`submitting ${spec.name}`, { ledger: rec.id, credits: estimate.credits, consent: decision.consent });
  return sendItem(
    rec,
    {
      spec,
      input: raw,
      request,
      // Staged right before the POST; resolveLocalMedia refused every local reference unless a stager exists.
      files: files.size > 0 ? async () => files : undefined,
      kind,
      estimate,
      posted: 'after_post',
    },
    ctx,
    deps,
  );
}

/**
 * `store.admitBundle`, and when it throws, the truth about it (src/paid/admission-answer.ts): "not admitted, nothing
 * sent" when the store surely did not write it or the intent was found and released (so the same call is not
 * refused as its own duplicate), else "may have been admitted" with the intent's handle to follow. This call
 * never POSTs an admission it did not see, so either way nothing was sent.
 */
async function admitOrRelease(
  deps: Pick<BillingDeps, 'jobs' | 'log'>,
  id: string,
  admit: () => ReturnType<JobStore['admitBundle']>,
): Promise<Awaited<ReturnType<JobStore['admitBundle']>> | { unknown: string }> {
  try {
    const admitted = await traceAdmission(admit);
    logBudgetAlerts(deps.log, admitted);
    return admitted;
  } catch (err) {
    const failed = await failedAdmission(
      err,
      'call',
      async () => {
        const rec = await deps.jobs.get(id);
        if (!rec) return 'absent';
        if (rec.outcome === 'rejected') return 'released';
        return (await release(deps.jobs, rec, RELEASED_UNCONFIRMED)) ? 'released' : 'kept';
      },
      deps.log,
    );
    if (failed.kind === 'not_admitted') throw failed.error;
    return { unknown: encodeHandle({ kind: 'submission', id }) };
  }
}

export { stepReached };
