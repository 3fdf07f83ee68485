/**
 * What a status read says about a job (`JobView`) and the mapping helpers every kind's status reader shares
 * (src/jobs/kinds/). Rules from platform-api.md "States and transitions":
 * - video jobs stop on `failed`, or on `completed` *with a non-empty URL*; completed without one keeps polling;
 * - enterprise status is 0/1/2 or a string; 1 without an output URL keeps polling;
 * - upscale: preparing/charged are in progress; completed, refunded and failed are terminal.
 * Imports nothing from the registry, so kind files can use it without an import cycle.
 */
import type { VideoStatus } from '../client/schemas.js';
import type { ApiResult } from '../client/types.js';
import type { JobOutput } from './envelope.js';

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

export const nonEmpty = (u: string | undefined | null): u is string => typeof u === 'string' && u.trim().length > 0;

export const NO_OUTPUT_NOTE = 'the platform reports completed but no output URL yet; still polling';

export function errorText(v: unknown): string | undefined {
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
export function fromState(
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

export const withRequest = (view: JobView, res: ApiResult<unknown>): JobView =>
  res.requestId ? { ...view, requestId: res.requestId } : view;

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

/** The video-job envelope status (actor, product, shoppable, family jobs): `{status, url?, reason?}`. */
export function envelopeView(res: ApiResult<VideoStatus>, id: string, media: JobOutput['media']): JobView {
  return withRequest({ ...fromState(res.data.status, [res.data.url], media, res.data.reason), remote: { id } }, res);
}
