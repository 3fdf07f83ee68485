/**
 * After the one POST: what its answer (or its failure) means for the record and for the agent. Every
 * outcome is settled in the store before the answer goes out (invariant 3): in a serving process the store is
 * wrapped by the write-ahead spool (src/store/spool.ts), which fsyncs the answer to disk before the store is
 * written. A settle that fails never hides an accepted job's handle: the intent already holds the spend.
 */
import type { Submission } from '../define-tool.js';
import { GenplatError, PlatformError, SubmissionUnknownError } from '../errors.js';
import type { JobEnvelope } from '../jobs/envelope.js';
import { encodeHandle, tryEncodeHandle } from '../jobs/handle.js';
import { aboveQuoteSentence, reconcile, warnIfAboveQuote } from '../jobs/reconcile.js';
import type { JobRecord, JobStore } from '../jobs/store.js';
import type { Logger } from '../log.js';
import { NOT_RECORDED_LEAD } from '../store/spool-notes.js';
import { isStoreUnreachable } from '../store/unreachable.js';
import { metrics } from '../telemetry/metrics.js';
import { inSpan } from '../telemetry/traces.js';

/** What a paid call ends with: an envelope (submitted, unknown, an answer), or an error to report. */
export type PaidResult = { envelope: JobEnvelope } | { error: unknown };

export interface SettleDeps {
  jobs: JobStore;
  log: Logger;
  /** Waits between settle attempts (tests pass zeros). */
  settleRetryDelaysMs?: readonly number[];
}

/**
 * A settle is a local, idempotent write of what the POST taught us (ids, handle, charges): retried when the
 * store is briefly unavailable (SQLite busy past its timeout, a dropped PostgreSQL connection), because a
 * record left `pending` has no platform id to follow and its spend stays at the quote. Never the POST itself.
 * Waits ~4 s in all, within a host's tool timeout. A store that answered and refused the write is not asked again:
 * the refusal would repeat (a serving process's spool has already set the answer aside, src/store/spool.ts).
 */
const SETTLE_RETRY_DELAYS_MS = [250, 1000, 3000] as const;

async function settleDurably(rec: JobRecord, result: Parameters<JobStore['settle']>[1], deps: SettleDeps) {
  const delays = deps.settleRetryDelaysMs ?? SETTLE_RETRY_DELAYS_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await inSpan('genplat.settle', { 'genplat.settle.outcome': result.outcome }, () =>
        deps.jobs.settle(rec.id, result),
      );
    } catch (err) {
      const wait = delays[attempt];
      if (wait === undefined || !isStoreUnreachable(err)) throw err;
      deps.log.warn('store update after the POST failed; retrying', { ledger: rec.id, error: String(err) });
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

const compact = (o: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => typeof e[1] === 'string'));

/** The platform accepted the POST: settle the record with its ids and figures; the envelope names the handle. */
export async function settleSubmission(
  rec: JobRecord,
  sub: Submission,
  est: JobEnvelope['estimate'],
  deps: SettleDeps,
): Promise<PaidResult> {
  // An id no handle can carry (lone surrogate, too long) keeps the ledger handle `submission:<id>`; the
  // record's `ref` holds the platform id, and get_job / wait_for_jobs follow the job through it.
  const handle = tryEncodeHandle(sub.ref) ?? rec.handle;
  const status = sub.status ?? 'processing';
  const remote = compact(sub.remote);
  const charges = {
    ...(sub.creditsCharged !== undefined ? { creditsCharged: sub.creditsCharged } : {}),
    ...(sub.platformEstimate !== undefined ? { platformEstimate: sub.platformEstimate } : {}),
  };
  metrics.creditsQuoted(rec.tool, rec.owner, (est ?? rec.estimate)?.credits ?? 0);
  // A charge in the submit answer is reported now; later status reads count only what grows beyond it.
  metrics.creditsReported(rec.tool, rec.owner, sub.creditsCharged ?? 0, 0);
  // What the store now holds for this job: the quote and whatever the platform reported at submit time.
  const settled = { ...rec, ...charges, outcome: 'submitted' as const, status, handle };
  warnIfAboveQuote(deps.log, settled);
  const reconciliation = reconcile(settled);
  let stored: JobRecord | undefined;
  try {
    stored = await settleDurably(
      rec,
      {
        outcome: 'submitted',
        handle,
        ref: sub.ref,
        kind: sub.ref.kind,
        status,
        requestId: sub.requestId,
        remote,
        outputs: sub.outputs ?? [],
        ...charges,
        ...(sub.originalUrl !== undefined ? { originalUrl: sub.originalUrl } : {}),
      },
      deps,
    );
  } catch (err) {
    // The job exists and the handle below is all the agent needs; the intent record still holds the spend.
    deps.log.error('store update after an accepted submission failed', { ledger: rec.id, handle, error: String(err) });
  }
  const done = status === 'completed';
  // The spool could not hold the answer either (src/store/spool.ts): the agent is told so, with the ids, first.
  const unrecorded = stored?.reason?.startsWith(NOT_RECORDED_LEAD) ? `${stored.reason} ` : '';
  return {
    envelope: {
      status: done ? 'completed' : 'submitted',
      handle,
      kind: sub.ref.kind,
      ...(est ? { estimate: est } : {}),
      remote,
      ...(sub.outputs?.length ? { outputs: sub.outputs } : {}),
      ...(sub.creditsCharged !== undefined ? { credits_charged: sub.creditsCharged } : {}),
      ...(reconciliation ? { reconciliation } : {}),
      ...(sub.requestId ? { request_id: sub.requestId } : {}),
      ...(sub.details ? { details: sub.details } : {}),
      next_step:
        unrecorded +
        (reconciliation?.above_quote ? `${aboveQuoteSentence(reconciliation)} ` : '') +
        (done
          ? 'Done: the result is in outputs (and details). No further call is needed.'
          : `Call wait_for_jobs with handles ${JSON.stringify([handle])}; each call waits up to ~45 s, so call again with the returned handles until the status is completed or failed.`),
    },
  };
}

/**
 * Was a job-starting POST possibly sent? The client maps every ambiguous failure of a job-starting POST
 * (timeout, reset, 5xx, unreadable 2xx, `submission_unknown`) to SubmissionUnknownError, and its area tests
 * pin the submit flag on every generate route. So any other platform error came from a definitive POST
 * answer (4xx, never-sent connection) or from a free read before the POST (e.g. a pack lookup that got a
 * 5xx): nothing billable went out. Our own input/config errors are raised before sending. Anything else
 * is unrecognised: assume the worst.
 */
function maySent(err: unknown): boolean {
  if (err instanceof SubmissionUnknownError) return true;
  return !(err instanceof GenplatError);
}

/** The POST failed: `rejected` (nothing started) or `unknown` (a job may exist; never resent automatically). */
export async function settleFailure(
  rec: JobRecord,
  err: unknown,
  kind: JobEnvelope['kind'],
  est: JobEnvelope['estimate'],
  deps: SettleDeps,
): Promise<PaidResult> {
  if (!maySent(err)) {
    const requestId = err instanceof PlatformError ? err.requestId : undefined;
    await settleDurably(
      rec,
      {
        outcome: 'rejected',
        status: 'failed',
        requestId,
        reason: err instanceof Error ? err.message : String(err),
      },
      deps,
    ).catch((e) => deps.log.error('store update (rejected) failed', { ledger: rec.id, error: String(e) }));
    return { error: err };
  }
  const unknown =
    err instanceof SubmissionUnknownError
      ? err
      : new SubmissionUnknownError(err instanceof PlatformError ? err : undefined, (err as PlatformError)?.requestId);
  if (!(err instanceof GenplatError)) deps.log.error('unexpected error while submitting', { error: String(err) });
  const handle = encodeHandle({ kind: 'submission', id: rec.id });
  await settleDurably(
    rec,
    {
      outcome: 'unknown',
      status: 'unknown',
      handle,
      requestId: unknown.requestId,
      reason: unknown.message,
    },
    deps,
  ).catch((e) => deps.log.error('store update (unknown) failed', { ledger: rec.id, error: String(e) }));
  deps.log.warn('submission outcome unknown', { ledger: rec.id, requestId: unknown.requestId });
  return {
    envelope: {
      status: 'unknown',
      handle,
      ...(kind ? { kind } : {}),
      ...(est ? { estimate: est } : {}),
      ...(unknown.requestId ? { request_id: unknown.requestId } : {}),
      reason: unknown.message,
      next_step: unknown.nextStep,
    },
  };
}
