/**
 * Status reads of every kind, normalised to a `JobView`. Each kind's own mapping lives in its registry file
 * (src/jobs/kinds/); the shared helpers and the rules from platform-api.md "States and transitions" are in
 * `view.ts`. The poller, the job tools and the job resources all read through `readJob`.
 */

import type { PlatformClient } from '../client/types.js';
import { type JobEnvelope, withBounded } from './envelope.js';
import { isPollable, type JobRef } from './handle.js';
import { kindDef } from './kinds/index.js';
import { aboveQuoteSentence, reconcile } from './reconcile.js';
import type { JobRecord } from './store.js';
import type { JobView } from './view.js';

// Re-exported: callers and tests import the view helpers from here.
export {
  isTerminal,
  type JobView,
  normaliseState,
  upscaleView,
  type ViewState,
} from './view.js';

/**
 * Reads a job's status once (one GET, with the client's own GET retries) and maps it.
 * @throws PlatformError subclasses from the client (404 for an unknown id, transport failures after retries).
 * @throws Error for kinds without a status endpoint (`custom_avatar`, `submission`): use `viewFromRecord`.
 */
export async function readJob(client: PlatformClient, ref: JobRef, signal?: AbortSignal): Promise<JobView> {
  const status = kindDef(ref.kind).status;
  if (!status) throw new Error(`${ref.kind} handles have no status endpoint; read them from the ledger`);
  return status.read(client, ref, signal ? { signal } : {});
}

/**
 * The view of a job we can only know from the ledger: custom avatars (complete at creation) and
 * `submission:` handles (the platform never gave an id: outcome unknown, rejected or never sent).
 */
export function viewFromRecord(rec: JobRecord): JobView {
  const base = {
    outputs: rec.outputs,
    ...(rec.creditsCharged !== undefined ? { creditsCharged: rec.creditsCharged } : {}),
    ...(rec.requestId ? { requestId: rec.requestId } : {}),
  };
  if (rec.status === 'completed') return { status: 'completed', ...base };
  if (rec.status === 'failed') return { status: 'failed', ...base, reason: rec.reason ?? 'the job failed' };
  if (rec.outcome === 'rejected') {
    return {
      status: 'failed',
      ...base,
      reason: rec.reason ?? 'the platform rejected the submission; no job was created',
    };
  }
  if (rec.status === 'declined') return { status: 'failed', ...base, reason: 'the user declined; nothing was sent' };
  if (rec.outcome === 'unknown') {
    return {
      status: 'unknown',
      ...base,
      reason:
        'the submission may or may not have been accepted (no answer from the platform), so there is no platform id to poll' +
        (rec.requestId ? `; give support the request id ${rec.requestId}` : ''),
    };
  }
  if (rec.outcome === 'queued') {
    // A campaign item admitted and not yet sent (src/paid/campaign.ts): its campaign's sender will send it.
    return { status: 'processing', ...base, note: 'a campaign item waiting its turn to be sent' };
  }
  if (rec.outcome === 'pending') {
    return {
      status: 'unknown',
      ...base,
      reason: 'the submission was never answered (the server may have stopped while sending it)',
    };
  }
  return {
    status: 'unknown',
    ...base,
    reason: `the ledger shows status "${rec.status}" and there is no status endpoint for this handle`,
  };
}

/**
 * The job envelope (design.md section 2) for a view, enriched with what only the ledger knows (estimate,
 * upscale original URL). Shared by get_job, wait_for_jobs and the job resources.
 */
export function viewEnvelope(handle: string | undefined, ref: JobRef, view: JobView, rec?: JobRecord): JobEnvelope {
  const remote = { ...(rec?.remote ?? {}), ...(view.remote ?? {}) };
  const requestId = view.requestId ?? rec?.requestId;
  const details: Record<string, unknown> = {
    ...(view.note ? { note: view.note } : {}),
    ...(view.creditsRefunded !== undefined ? { credits_refunded: view.creditsRefunded } : {}),
    ...(rec?.originalUrl ? { original_url: rec.originalUrl } : {}),
  };
  const creditsCharged = view.creditsCharged ?? rec?.creditsCharged;
  // The record as this read leaves it (the poller stores the same figures), so envelope and ledger agree.
  const reconciliation = rec
    ? reconcile({
        ...rec,
        ...(creditsCharged !== undefined ? { creditsCharged } : {}),
        ...(view.creditsRefunded !== undefined ? { creditsRefunded: view.creditsRefunded } : {}),
        ...(view.status !== 'unknown' ? { status: view.status } : {}),
      })
    : undefined;
  const step = nextStep(handle, ref, view);
  return {
    status: view.status,
    ...(handle !== undefined ? { handle } : {}),
    kind: ref.kind,
    ...(rec?.estimate ? { estimate: withBounded(rec.estimate) } : {}),
    ...(Object.keys(remote).length ? { remote } : {}),
    outputs: view.outputs,
    ...(view.reason ? { reason: view.reason } : {}),
    ...(creditsCharged !== undefined ? { credits_charged: creditsCharged } : {}),
    ...(reconciliation ? { reconciliation } : {}),
    ...(requestId ? { request_id: requestId } : {}),
    ...(Object.keys(details).length ? { details } : {}),
    next_step: reconciliation?.above_quote ? `${aboveQuoteSentence(reconciliation)} ${step}` : step,
  };
}

function nextStep(handle: string | undefined, ref: JobRef, view: JobView): string {
  switch (view.status) {
    case 'completed':
      return 'Done: the result URLs are in outputs. No further call is needed.';
    case 'failed':
      return `The job failed (${view.reason ?? 'no reason given'}). Tell the user; start a new job only if they want to (list_jobs shows charges).`;
    case 'processing':
      return handle !== undefined
        ? `Still processing. Call wait_for_jobs with handles ${JSON.stringify([handle])} to wait for it.`
        : `Still processing. Call get_job with kind "${ref.kind}" and the id in remote.id again in a few seconds.`;
    case 'unknown':
      return isPollable(ref)
        ? 'The platform could not report on this job: check the handle or id (list_jobs lists known handles).'
        : 'There is nothing to poll. Do not resubmit blindly: ask the user, and only then call the create tool again with allow_duplicate: true.';
  }
}
