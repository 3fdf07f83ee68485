/**
 * One status read per job kind, normalised to a `JobView`. The platform has four status shapes (video-job
 * envelope, content library, gestures, flat enterprise, upscale attempt); this is the only module that
 * knows them, so the poller, the job tools and the job resources share one mapping.
 *
 * Rules from platform-api.md "States and transitions":
 * - video jobs stop on `failed`, or on `completed` *with a non-empty URL*; completed without one keeps polling;
 * - enterprise status is 0/1/2 or a string; 1 without an output URL keeps polling;
 * - upscale: preparing/charged are in progress; completed, refunded and failed are terminal.
 */
import type { ApiResult, PlatformClient } from '../client/types.js';
import { type JobEnvelope, type JobOutput, withBounded } from './envelope.js';
import { isPollable, type JobRef } from './handle.js';
import { aboveQuoteSentence, reconcile } from './reconcile.js';
import type { JobRecord } from './store.js';

/** What one status read says about a job. `unknown` is only used for ledger-only handles and unreadable jobs. */
export interface JobView {
  status: 'processing' | 'completed' | 'failed' | 'unknown';
  outputs: JobOutput[];
  reason?: string;
  /** Something the agent should know that is not a failure (odd state string, transient read error). */
  note?: string;
  creditsCharged?: number;
  creditsRefunded?: number;
  remote?: { id?: string; project_id?: string; billing_id?: string };
  /** `x-request-id` of the status response that produced this view. */
  requestId?: string;
}

export type ViewState = JobView['status'];

/** True once a job will not change any more (no further reads). */
export function isTerminal(view: Pick<JobView, 'status'>): boolean {
  return view.status === 'completed' || view.status === 'failed';
}

// Enterprise string states are "not shown" in the spec; these are the spellings such APIs commonly use.
const PROCESSING = new Set(['processing', 'queued', 'pending', 'in_progress', 'running', 'starting', 'started', '0']);
const COMPLETED = new Set(['completed', 'complete', 'succeeded', 'success', 'done', 'finished', '1']);
const FAILED = new Set(['failed', 'failure', 'error', 'errored', 'cancelled', 'canceled', '2']);

/** Maps a raw state (string or 0/1/2) to ours; anything unrecognised stays processing with a note. */
export function normaliseState(raw: string | number | undefined): {
  state: 'processing' | 'completed' | 'failed';
  note?: string;
} {
  const s = String(raw ?? '')
    .trim()
    .toLowerCase();
  if (COMPLETED.has(s)) return { state: 'completed' };
  if (FAILED.has(s)) return { state: 'failed' };
  if (PROCESSING.has(s)) return { state: 'processing' };
  return {
    state: 'processing',
    note: `the platform reported an unrecognised state "${String(raw)}"; treated as processing`,
  };
}

const nonEmpty = (u: string | undefined | null): u is string => typeof u === 'string' && u.trim().length > 0;

const NO_OUTPUT_NOTE = 'the platform reports completed but no output URL yet; still polling';

function errorText(v: unknown): string | undefined {
  if (typeof v === 'string' && v.trim()) return v.trim();
  if (v && typeof v === 'object') {
    const m = (v as Record<string, unknown>).message;
    if (typeof m === 'string' && m.trim()) return m.trim();
    try {
      return JSON.stringify(v).slice(0, 300);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Common tail for the string-state kinds: completed needs an output, failed gets a reason. */
function fromState(
  raw: string | number | undefined,
  urls: (string | undefined | null)[],
  media: JobOutput['media'],
  reason: string | undefined,
): JobView {
  const { state, note } = normaliseState(raw);
  const outputs = urls.filter(nonEmpty).map((url) => ({ url, media }));
  if (state === 'completed' && outputs.length === 0) return { status: 'processing', outputs: [], note: NO_OUTPUT_NOTE };
  if (state === 'failed') {
    return { status: 'failed', outputs: [], reason: reason ?? 'the platform reported the job failed without a reason' };
  }
  if (state === 'processing') return { status: 'processing', outputs: [], ...(note ? { note } : {}) };
  return { status: 'completed', outputs };
}

const withRequest = (view: JobView, res: ApiResult<unknown>): JobView =>
  res.requestId ? { ...view, requestId: res.requestId } : view;

/**
 * Reads a job's status once (one GET, with the client's own GET retries) and maps it.
 * @throws PlatformError subclasses from the client (404 for an unknown id, transport failures after retries).
 * @throws Error for kinds without a status endpoint (`custom_avatar`, `submission`): use `viewFromRecord`.
 */
export async function readJob(client: PlatformClient, ref: JobRef, signal?: AbortSignal): Promise<JobView> {
  const o = signal ? { signal } : {};
  switch (ref.kind) {
    case 'actor_video':
    case 'product_video':
    case 'shoppable_image':
    case 'shoppable_video':
    case 'family_video': {
      const read = {
        actor_video: () => client.actors.status(ref.id, o),
        product_video: () => client.products.status(ref.id, o),
        shoppable_image: () => client.ads.imageStatus(ref.id, o),
        shoppable_video: () => client.ads.videoStatus(ref.id, o),
        family_video: () => client.family.status(ref.id, o),
      }[ref.kind];
      const res = await read();
      const media = ref.kind === 'shoppable_image' ? 'image' : 'video';
      return withRequest(
        { ...fromState(res.data.status, [res.data.url], media, res.data.reason), remote: { id: ref.id } },
        res,
      );
    }
    case 'template_video': {
      const res = await client.library.status(ref.id, o);
      return withRequest(
        {
          ...fromState(res.data.status, [res.data.url], 'video', res.data.reason),
          remote: { id: res.data.db_id ?? ref.id },
        },
        res,
      );
    }
    case 'gesture': {
      const res = await client.gestures.status(ref.id, o);
      const d = res.data;
      const charged = (d as Record<string, unknown>).credits_charged;
      const view = fromState(d.status, [d.video_url], 'video', d.reason);
      return withRequest(
        {
          ...view,
          remote: { id: d.id ?? ref.id, ...(d.project_id ? { project_id: d.project_id } : {}) },
          ...(typeof charged === 'number' ? { creditsCharged: charged } : {}),
        },
        res,
      );
    }
    case 'model': {
      // `any`: the spec checks video first, then image, when media is omitted.
      const res = await client.enterprise.status(ref.id, ref.media === 'any' ? undefined : ref.media, o);
      const d = res.data;
      const outputs: JobOutput[] = [
        ...(d.output?.output_link ?? []).filter(nonEmpty).map((url) => ({ url, media: 'image' as const })),
        ...(nonEmpty(d.video_url) ? [{ url: d.video_url, media: 'video' as const }] : []),
      ];
      const { state, note } = normaliseState(d.status);
      const remote = { id: d.request_id ?? ref.id, ...(d.project_id ? { project_id: d.project_id } : {}) };
      let view: JobView;
      if (state === 'completed') {
        view =
          outputs.length > 0
            ? { status: 'completed', outputs }
            : { status: 'processing', outputs: [], note: NO_OUTPUT_NOTE };
      } else if (state === 'failed') {
        const reason = d.reason ?? errorText(d.error) ?? 'the platform reported the job failed without a reason';
        view = { status: 'failed', outputs: [], reason };
      } else {
        view = { status: 'processing', outputs: [], ...(note ? { note } : {}) };
      }
      return withRequest({ ...view, remote }, res);
    }
    case 'upscale': {
      const res = await client.upscale.status(
        { video_id: ref.id, project_id: ref.projectId, video_type: ref.videoType, billing_id: ref.billingId },
        o,
      );
      return withRequest(upscaleView(res.data), res);
    }
    case 'custom_avatar':
    case 'submission':
      throw new Error(`${ref.kind} handles have no status endpoint; read them from the ledger`);
  }
}

/** Upscale attempt → view. Refunded is terminal and counts as a failure: nothing new was produced. */
export function upscaleView(d: {
  id: string;
  billing_id: string;
  project_id?: string | undefined;
  status: string;
  video_url?: string | undefined;
  credits_charged?: number | undefined;
  credits_refunded?: number | undefined;
  error?: string | undefined;
}): JobView {
  const charges = {
    ...(d.credits_charged !== undefined ? { creditsCharged: d.credits_charged } : {}),
    ...(d.credits_refunded !== undefined ? { creditsRefunded: d.credits_refunded } : {}),
    remote: { id: d.id, billing_id: d.billing_id, ...(d.project_id ? { project_id: d.project_id } : {}) },
  };
  const s = d.status.trim().toLowerCase();
  switch (s) {
    case 'preparing':
    case 'charged':
      return { status: 'processing', outputs: [], ...charges };
    case 'completed':
      return nonEmpty(d.video_url)
        ? { status: 'completed', outputs: [{ url: d.video_url, media: 'video' }], ...charges }
        : { status: 'processing', outputs: [], note: NO_OUTPUT_NOTE, ...charges };
    case 'refunded':
      return {
        status: 'failed',
        outputs: [],
        reason: `refunded: ${d.credits_refunded ?? 0} credits returned${d.error ? ` (${d.error})` : ''}`,
        ...charges,
      };
    case 'failed':
      return {
        status: 'failed',
        outputs: [],
        reason: d.error ?? 'the upscale attempt failed without a reason',
        ...charges,
      };
    default:
      return {
        status: 'processing',
        outputs: [],
        note: `the platform reported an unrecognised upscale state "${d.status}"; treated as processing`,
        ...charges,
      };
  }
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
