/**
 * Job visibility per caller (HTTP mode). A handle is only an id, not a credential: in HTTP mode every read of
 * a job by handle checks that the ledger record, if any, belongs to the caller. On stdio (`owner` undefined)
 * the operator is the only caller and sees every record.
 */
import { UserInputError } from '../errors.js';
import type { JobStore } from './store.js';

/**
 * @throws UserInputError(field) when the ledger holds this handle for another caller. The message is the same
 *   as for a handle nobody has, so a caller cannot tell another caller's job from a typo.
 */
export async function assertOwnJob(
  jobs: JobStore,
  owner: string | undefined,
  handle: string,
  field: string,
): Promise<void> {
  if (owner === undefined) return;
  const rec = await jobs.get(handle);
  if (rec && rec.owner !== owner) {
    throw new UserInputError(field, 'no such job for this caller (handles come from your create calls); see list_jobs');
  }
}
