/**
 * Which job a caller names, and whether it is theirs. A handle is only an id, not a credential: in HTTP mode
 * every read of a job checks that the ledger record of that job, if any, belongs to the caller. The record is
 * found by the job's identity (`jobKey`: kind + platform id), never by the handle's spelling, so no alias
 * (another media part in a `model:` handle, a percent-encoding variant, a raw `{kind, id}`, an upscale
 * handle with the same billing id) reaches another caller's job. On stdio (`owner` undefined) the operator
 * is the only caller and sees every record.
 */
import { UserInputError } from '../errors.js';
import { isPollable, type JobRef, recordRef, tryEncodeHandle } from './handle.js';
import type { JobRecord, JobStore } from './store.js';

/** Same words for another caller's job and for one nobody has: a caller cannot tell them apart. */
export const NOT_YOUR_JOB = 'no such job for this caller (handles come from your create calls); see list_jobs';

export interface ResolvedJob {
  /**
   * What to read: the platform reference. A `submission:<id>` handle whose record the platform accepted
   * resolves to the job's platform reference, so a job whose id no handle can carry is still followed.
   */
  ref: JobRef;
  /**
   * What to call it in answers: the record's handle, else the handle of `ref`; undefined only for an id no
   * handle can carry that the ledger does not know yet (get_job adopts it, which gives it one).
   */
  handle: string | undefined;
  /** The caller's ledger record of this job, if any. */
  rec: JobRecord | undefined;
}

/**
 * @throws UserInputError(field) when the ledger holds this job for another caller, with the message of a job
 *   nobody has.
 */
export async function resolveJob(
  jobs: JobStore,
  owner: string | undefined,
  asked: JobRef,
  field: string,
): Promise<ResolvedJob> {
  const rec = await jobs.getByRef(asked);
  if (owner !== undefined && rec && rec.owner !== owner) throw new UserInputError(field, NOT_YOUR_JOB);
  let ref = asked;
  if (asked.kind === 'submission' && rec?.outcome === 'submitted') {
    const platform = recordRef(rec);
    if (platform && isPollable(platform)) ref = platform;
  }
  // The record's handle is the job's one name in answers, whichever alias the caller used.
  return { ref, handle: rec?.handle ?? tryEncodeHandle(ref), rec };
}

/**
 * HTTP mode: a job the platform does not know and the caller has no record of gets the answer another
 * caller's job gets, so that answer tells a caller nothing about other callers' jobs.
 * @throws UserInputError(field, NOT_YOUR_JOB) in that case.
 */
export function assertKnownToCaller(
  owner: string | undefined,
  job: { ref: JobRef; rec: JobRecord | undefined },
  status: string,
  field: string,
): void {
  if (owner !== undefined && !job.rec && status === 'unknown' && isPollable(job.ref)) {
    throw new UserInputError(field, NOT_YOUR_JOB);
  }
}
