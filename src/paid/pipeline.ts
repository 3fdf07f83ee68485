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
import type { z } from 'zod';
import type { BillableToolSpec, PlatformRequest, ToolContext } from '../define-tool.js';
import { UserInputError } from '../errors.js';
import { filesDeps } from '../files/files-deps.js';
import { type FilesDeps, type LocalMediaRequest, resolveLocalMedia } from '../files/local-media.js';
import { checkWebhookUrl } from '../guards/url.js';
import type { Estimate, JobEnvelope } from '../jobs/envelope.js';
import { encodeHandle, type JobKind } from '../jobs/handle.js';
import type { JobStore } from '../jobs/store.js';
import { stepReached } from '../kill-steps.js';
import { evaluateBundleOfOne, firstIdenticalItem } from './admission.js';
import { failedAdmission } from './admission-answer.js';
import type { BillingDeps, PaidCallArgs, PaidCallResult } from './call-types.js';
import { admitCampaignCall, identicalItemsError, itemFingerprint } from './campaign.js';
import { consentCard } from './consent-card.js';
import { admitRules, campaignItemUnsettled, confirmationRequired, guardCall, refusalError } from './guard.js';
import { release } from './outbox.js';
import { finaliseEstimate } from './pricing/estimate.js';
import { sendItem } from './send.js';
import { admissionUnknownWords, RELEASED_UNCONFIRMED, TOKEN_ALREADY_USED } from './wording.js';

export type { BillingDeps, PaidCallArgs, PaidCallResult, PaidResult } from './call-types.js';

/**
 * Runs one billable call to its end. Throws only what happens before anything was written (bad input,
 * store unreadable): the runtime reports it as an error, and nothing was sent.
 */
export async function runPaidCall(
  spec: BillableToolSpec<z.ZodRawShape>,
  args: PaidCallArgs,
  ctx: ToolContext,
  deps: BillingDeps,
): Promise<PaidCallResult> {
  const input = args.input as never;
  const raw = args.input;
  const { request, files, estimate, kind, summary } = await prepareCall(spec, raw, ctx, {
    files: filesDeps(deps.config, { roots: deps.roots, uploads: deps.uploads, selfStager: deps.selfStager }),
    owner: deps.owner,
  });
  const items = spec.billable.campaign?.items(input);
  const itemFps = items?.map(itemFingerprint);
  const twin = itemFps && !args.allowDuplicate ? firstIdenticalItem(itemFps) : undefined;
  if (twin) throw identicalItemsError(twin);
  const unsettled = itemFps && args.allowDuplicate ? await campaignItemUnsettled(deps, itemFps, deps.owner) : undefined;
  if (unsettled) {
    const { item, record } = unsettled;
    const handle = record.owner === deps.owner ? record.handle : 'of another caller';
    throw new UserInputError(
      `items[${item}]`,
      `is identical to a job whose outcome is ${record.outcome === 'unknown' ? 'unknown' : 'not known yet'} (handle ${handle}): it may already be made and charged, and a campaign's one consent cannot warn about it`,
      'Follow that job with get_job first; to make this item again anyway, call its own tool with allow_duplicate: true (you will be warned and asked). Nothing was sent or charged.',
    );
  }
  const guardDeps = { config: deps.config, jobs: deps.jobs, now: deps.now, tokenTtlMs: deps.tokenTtlMs };
  const call = {
    tool: spec.name,
    input: raw,
    kind,
    request,
    estimate,
    summary,
    owner: deps.owner,
    token: args.token,
    allowDuplicate: args.allowDuplicate,
    carrier: args.carrier ?? 'model',
    elicit: args.elicit,
    form: args.form,
    ...(items ? { itemCredits: items.map((i) => i.estimate.credits) } : {}),
  };

  const decision = await guardCall(guardDeps, call);
  if (decision.kind === 'refuse') return { error: decision.error };
  // The card is built from the same request, estimate and summary as the form's message (consentMessage).
  const quoted = (envelope: JobEnvelope) => ({
    envelope,
    card: consentCard({ tool: spec.name, body: request.body, estimate, summary }),
  });
  if (decision.kind === 'answer') {
    return decision.envelope.status === 'confirmation_required'
      ? quoted(decision.envelope)
      : { envelope: decision.envelope };
  }
  if (decision.kind === 'ask') return { askForm: { message: decision.message, envelope: decision.envelope } };
  if (items && spec.billable.campaign) {
    return admitCampaignCall({ items, estimate, itemSpec: spec.billable.campaign.itemSpec }, call, decision, ctx, deps);
  }

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
 * The front half every paid call shares (a single call, and each campaign item): validate → request → price.
 * Free: no POST, no write. @throws UserInputError naming the field (nothing sent).
 */
export async function prepareCall(
  spec: BillableToolSpec<z.ZodRawShape>,
  raw: Record<string, unknown>,
  ctx: ToolContext,
  local: {
    files: FilesDeps;
    owner: string | undefined;
    /** Refusals that need the built request and no price (a campaign item's duplicate rule): before pricing. */
    beforePrice?: ((request: PlatformRequest) => Promise<void>) | undefined;
  },
): Promise<{
  request: PlatformRequest;
  files: LocalMediaRequest['files'];
  estimate: Estimate;
  kind: JobKind;
  summary: string;
}> {
  const input = raw as never;
  if (typeof raw.webhook_url === 'string' && raw.webhook_url !== '') {
    checkWebhookUrl('webhook_url', raw.webhook_url, ctx.config.webhookAllowlist);
  }
  await spec.validate?.(input, ctx);
  // Built once: the fingerprint (what the token and the duplicate rule bind to) and the POST in run() use
  // this same object, so what the user consented to is byte for byte what is sent.
  // Local files in media fields become `local:<sha256>/<name>` here, so consent binds their content (src/files/).
  // A campaign's request lists its items' requests, whose files each item's own prepareCall already resolved.
  const built = await spec.request(input, ctx);
  const { request, files } = spec.billable.campaign
    ? { request: built, files: new Map() }
    : await resolveLocalMedia(built, local.files, local.owner);
  await local.beforePrice?.(request);
  const estimate = finaliseEstimate(ctx.config, spec.name, await spec.billable.estimate(input, ctx));
  return { request, files, estimate, kind: spec.billable.kind(input), summary: spec.billable.summary(input) };
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
    return await admit();
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
