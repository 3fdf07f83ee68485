/**
 * What a paid call says when its admission transaction throws (issue 27 item 2), for a single call and a
 * campaign alike. Three truths, never "try again" when the truth is unknown:
 *
 * - the store failed BEFORE its COMMIT (every error but `CommitUnknownError`): the transaction rolled back,
 *   nothing was admitted or sent → "not admitted, nothing sent" (`NotAdmittedError`; the store's own errors,
 *   StoreBusyError and StateError, already say so and pass unchanged);
 * - the COMMIT's answer was lost, and the store answers the read that follows: nothing on record → not admitted;
 *   the intent found → released by compare-and-set (nothing was sent: this call never saw the admission, so it
 *   never POSTs, and a sweep sends only acknowledged campaign items) → "not admitted, nothing sent";
 * - the store stays unreachable → "may have been admitted, follow <handle>", and the release is retried in the
 *   background every `RELEASE_RETRY_EVERY_MS` for `RELEASE_RETRY_FOR_MS` (a campaign's items are also released by
 *   any process's sweep, `UNACKNOWLEDGED_GRACE_MS` after admission).
 *
 * Domain code: no MCP SDK import.
 */
import { GenplatError } from '../errors.js';
import type { Logger } from '../log.js';
import { CommitUnknownError } from '../store/commit-unknown.js';
import { NotAdmittedError } from './wording.js';

/** How often the admitting process retries a release the store could not take. */
export const RELEASE_RETRY_EVERY_MS = 5_000;
/** How long it keeps trying (a process that stops earlier leaves a campaign to the sweep's grace release). */
export const RELEASE_RETRY_FOR_MS = 10 * 60_000;

/**
 * What a release found: `absent` (the admission never committed), `released` (the intent was still waiting and
 * is released now, or was already), `kept` (something of it moved on: not ours to call unsent).
 */
export type ReleaseOutcome = 'absent' | 'released' | 'kept';

export type FailedAdmission = { kind: 'not_admitted'; error: unknown } | { kind: 'unknown' };

/**
 * Classifies the admission's failure, releasing what a lost COMMIT answer may have left.
 * @param release reads the store and releases the admission's intents by compare-and-set; throws while the store
 *   is unreachable.
 */
export async function failedAdmission(
  err: unknown,
  what: 'call' | 'campaign',
  release: () => Promise<ReleaseOutcome>,
  log: Logger,
  retry: { everyMs?: number; forMs?: number } = {},
): Promise<FailedAdmission> {
  // The store's own errors (StoreBusyError, StateError) are raised before any write, and say so.
  if (err instanceof GenplatError) return { kind: 'not_admitted', error: err };
  const lost = err instanceof CommitUnknownError;
  if (lost)
    log.warn(`the store's answer to the ${what}'s admission was lost; releasing it unsent`, {
      error: String(err.cause ?? err),
    });
  try {
    // Also after any other failure: cheap, and whatever the store holds of it is then released, never sent.
    const found = await release();
    if (found === 'kept') return { kind: 'unknown' };
    return { kind: 'not_admitted', error: new NotAdmittedError(what, found === 'released', { cause: err }) };
  } catch {
    if (!lost) return { kind: 'not_admitted', error: notAdmitted(err, what, log) };
    retryRelease(release, log, retry.everyMs ?? RELEASE_RETRY_EVERY_MS, retry.forMs ?? RELEASE_RETRY_FOR_MS);
    return { kind: 'unknown' };
  }
}

/** A failure before anything was written: the store's own error when it says so, else "not admitted". */
export function notAdmitted(err: unknown, what: 'call' | 'campaign', log: Logger): unknown {
  if (err instanceof GenplatError) return err;
  log.warn(`the store failed before admitting the ${what}; nothing was sent`, { error: String(err) });
  return new NotAdmittedError(what, false, { cause: err });
}

/** Retries `release` in the background until it answers or `forMs` has passed; keeps no process alive. */
function retryRelease(release: () => Promise<ReleaseOutcome>, log: Logger, everyMs: number, forMs: number): void {
  const until = Date.now() + forMs;
  let trying = false;
  const timer = setInterval(() => {
    if (Date.now() > until) clearInterval(timer);
    if (trying || Date.now() > until) return;
    trying = true;
    release()
      .then(
        (found) => {
          clearInterval(timer);
          log.info('an admission whose answer was lost is settled', { found });
        },
        () => undefined,
      )
      .finally(() => {
        trying = false;
      });
  }, everyMs);
  timer.unref();
}
