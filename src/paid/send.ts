/**
 * The one send of the paid path (issue 28 item 7). Every paid request, a single call's or a bundle item's, leaves
 * here and only here, once its record is held by the caller that sends it (a single call's intent is admitted
 * already claimed, `pending`; a bundle item is claimed queued → pending by `claimNext` in outbox.ts):
 *
 *   stage its local files → at most our callback URL → ONE POST through its tool's run() → settle
 *
 * Whatever fails before the POST settles the record `rejected` (nothing sent, its reservation returned); a POST
 * whose answer is lost settles it `unknown` (never resent). Staged copies are deleted when surely not accepted.
 *
 * Domain code: no MCP SDK import.
 */
import type { z } from 'zod';
import type { BillableToolSpec, PlatformRequest, ToolContext } from '../define-tool.js';
import { mayHaveBeenAccepted, StagingError, UserInputError } from '../errors.js';
import { stagerFor } from '../files/files-deps.js';
import type { ResolvedMedia } from '../files/local-media.js';
import type { Stager } from '../files/stage-s3.js';
import { type StagedRequest, stagedRefusal, stageRequest } from '../files/staging.js';
import type { Estimate } from '../jobs/envelope.js';
import type { JobKind } from '../jobs/handle.js';
import type { JobRecord } from '../jobs/store.js';
import type { PaidStep } from '../kill-steps.js';
import { type CallbackUrlMaker, withCallback } from './callback.js';
import { type PaidResult, type SettleDeps, settleFailure, settleSubmission } from './settle.js';
import { NO_STAGER_ANY_MORE } from './wording.js';

/**
 * The signal a paid `run()` sees: it never fires. Once the POST may be on the wire only its answer tells us the
 * job's id, so a cancelled call must still read it into the store (invariant 3); tools that pass ctx.signal to
 * the submit (run_model, create_family_video) would otherwise turn a job into "unknown".
 */
const NEVER_ABORTS: AbortSignal = new AbortController().signal;

/** What one held record sends: the consented request, exactly as admitted, and how to find its files again. */
export interface Outgoing {
  spec: BillableToolSpec<z.ZodRawShape>;
  input: Record<string, unknown>;
  /** The request consent was given for (local files still as `local:<sha256>/<name>` placeholders). */
  request: PlatformRequest;
  /** Its local files by placeholder (opened now: a bundle item's were recorded at admission); none = undefined. */
  files?: (() => Promise<Map<string, ResolvedMedia>>) | undefined;
  kind: JobKind;
  estimate: Estimate;
  /** The kill step after the POST's answer (src/kill-steps.ts): a single call's or a campaign item's name. */
  posted: PaidStep;
}

export interface SendDeps extends SettleDeps {
  onStep?: ((step: PaidStep) => void) | undefined;
  /** HTTP mode with a public URL: our per-job callback URL; undefined = polling only. */
  callbackUrl?: CallbackUrlMaker | undefined;
  /** HTTP with GENPLAT_PUBLIC_URL: staging into the shared store; a configured bucket wins. */
  selfStager?: Stager | undefined;
}

/** Sends one held record: stage → one POST → settle. Never throws for the POST's own failures: they are settled. */
export async function sendItem(rec: JobRecord, out: Outgoing, ctx: ToolContext, deps: SendDeps): Promise<PaidResult> {
  // Local files are staged now, right before the POST (src/files/staging.ts): their URLs name the record, and the
  // bytes must still hash to the consented ones, else it fails unsent and its reservation is returned.
  let staged: StagedRequest | undefined;
  if (out.files) {
    try {
      const files = await out.files();
      const stager = stagerFor(ctx.config, deps.selfStager);
      // A single call's files were refused unless a stager existed; a bundle item may be sent after a restart.
      if (!stager) throw new UserInputError([...files.values()][0]?.field ?? '', NO_STAGER_ANY_MORE);
      staged = await stageRequest(out.request, files, stager, deps.log, rec.id);
    } catch (err) {
      const unsent = err instanceof UserInputError ? err : new StagingError(err);
      return settleFailure(rec, unsent, out.kind, out.estimate, deps);
    }
  }
  const input = out.input as never;
  const sent = await withCallback(
    out.spec,
    input,
    ctx,
    staged?.request ?? out.request,
    rec.id,
    deps.callbackUrl,
    deps.log,
  );
  let sub: Awaited<ReturnType<typeof out.spec.run>>;
  try {
    sub = await out.spec.run(input, { ...ctx, signal: NEVER_ABORTS }, sent);
  } catch (err) {
    staged?.release(mayHaveBeenAccepted(err));
    return settleFailure(rec, staged ? stagedRefusal(err, staged.fields) : err, out.kind, out.estimate, deps);
  }
  staged?.release(true, sub.status === 'completed');
  deps.onStep?.(out.posted);
  return settleSubmission(rec, sub, out.estimate, deps);
}
