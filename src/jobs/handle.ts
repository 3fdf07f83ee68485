/**
 * Self-describing job handles: `<kind>:<ids…>`. A handle alone is enough to find the status endpoint, so a
 * job can be followed even without the ledger (or when it was started elsewhere).
 *
 *   actor_video:<id>        GET /video/status?id
 *   product_video:<id>      GET /product-in-hand/status?id
 *   shoppable_image:<id>    GET /shopable/images/status?id
 *   shoppable_video:<id>    GET /shopable/videos/status?id
 *   template_video:<db_id>  GET /content-library/status?id
 *   gesture:<id>            GET /gestures/status?id
 *   family_video:<id>       GET /<vendorC>/status?id
 *   model:<media>:<request_id>   GET /enterprise/status/{request_id}?media   (media: image|video|any)
 *   upscale:<video_type>:<project_id>:<video_id>:<billing_id>   GET /upscale/status
 *   custom_avatar:<avatar_id>    no status endpoint: complete at creation
 *   submission:<ledger id>  a submission whose outcome is unknown or was rejected: ledger only
 *
 * Each id part is percent-encoded, so ids containing ':' survive. A platform id that no handle can carry
 * (a lone surrogate, or too long for the tools' handle field) gets no handle of its own: `tryEncodeHandle`
 * says so, and the job is followed by its ledger handle `submission:<ledger id>`, whose record keeps the
 * platform reference (`JobRecord.ref`).
 *
 * A handle is a spelling, not an identity: `model:any:X` and `model:video:X` name one job, as do an upscale
 * handle and any other with the same billing id. `jobKey` is the identity (kind + platform id); ownership,
 * the poller and the ledger's lookups compare keys, never handle strings.
 */
import { z } from 'zod';
import { wellFormed } from '../unicode.js';

export const JOB_KINDS = [
  'actor_video',
  'product_video',
  'shoppable_image',
  'shoppable_video',
  'template_video',
  'gesture',
  'family_video',
  'model',
  'upscale',
  'custom_avatar',
  'submission',
] as const;
export type JobKind = (typeof JOB_KINDS)[number];
export const JobKindSchema = z.enum(JOB_KINDS);

export type ModelMedia = 'image' | 'video' | 'any';

export type JobRef =
  | { kind: Exclude<JobKind, 'model' | 'upscale'>; id: string }
  | { kind: 'model'; id: string; media: ModelMedia }
  | { kind: 'upscale'; id: string; videoType: string; projectId: string; billingId: string };

/** Longest handle the job tools accept (get_job, wait_for_jobs); a longer one could never be passed back. */
export const MAX_HANDLE_LENGTH = 1100;
/** Longest platform id a handle part or get_job's `id` may carry (the spec bounds upscale ids at 256). */
export const MAX_ID_LENGTH = 1024;

const enc = (s: string) => encodeURIComponent(s);

/**
 * The job's identity, whatever handle spells it: kind + platform id. The media part of a `model:` handle is
 * only a lookup hint, and an upscale attempt is its billing id. Total: works for ids no handle can carry.
 * Ids are compared as they reach the platform (`wellFormed`): an id with U+FFFD where another has a lone
 * surrogate reads the same job there, so it is the same job here.
 */
export function jobKey(ref: JobRef): string {
  switch (ref.kind) {
    case 'upscale':
      return `upscale\u0000${wellFormed(ref.billingId)}`;
    default:
      return `${ref.kind}\u0000${wellFormed(ref.id)}`;
  }
}

/** The handle of `ref`, or undefined when no handle can carry its ids (see the file comment). */
export function tryEncodeHandle(ref: JobRef): string | undefined {
  const parts = ref.kind === 'upscale' ? [ref.videoType, ref.projectId, ref.id, ref.billingId] : [ref.id];
  if (parts.some((p) => p.length === 0 || p.length > MAX_ID_LENGTH || wellFormed(p) !== p)) {
    return undefined;
  }
  const handle = encodeHandle(ref);
  return handle.length <= MAX_HANDLE_LENGTH ? handle : undefined;
}

/**
 * @throws URIError when an id holds a lone surrogate; use `tryEncodeHandle` for ids from the platform.
 */
export function encodeHandle(ref: JobRef): string {
  switch (ref.kind) {
    case 'model':
      return `model:${ref.media}:${enc(ref.id)}`;
    case 'upscale':
      return `upscale:${enc(ref.videoType)}:${enc(ref.projectId)}:${enc(ref.id)}:${enc(ref.billingId)}`;
    default:
      return `${ref.kind}:${enc(ref.id)}`;
  }
}

/** Parses a handle; returns undefined when it is not one of ours (the caller reports which field was wrong). */
export function decodeHandle(handle: string): JobRef | undefined {
  const parts = handle.trim().split(':');
  const kind = parts[0] as JobKind;
  if (!(JOB_KINDS as readonly string[]).includes(kind)) return undefined;
  let decoded: string[];
  try {
    decoded = parts.slice(1).map((p) => decodeURIComponent(p));
  } catch {
    return undefined;
  }
  if (decoded.some((p) => p.length === 0 || p.length > MAX_ID_LENGTH)) return undefined;
  if (kind === 'model') {
    const [media, id] = decoded;
    if (decoded.length !== 2 || !id || (media !== 'image' && media !== 'video' && media !== 'any')) return undefined;
    return { kind, media, id };
  }
  if (kind === 'upscale') {
    if (decoded.length !== 4) return undefined;
    const [videoType, projectId, id, billingId] = decoded as [string, string, string, string];
    return { kind, videoType, projectId, id, billingId };
  }
  if (decoded.length !== 1) return undefined;
  return { kind, id: decoded[0]! } as JobRef;
}

/**
 * The platform reference a ledger record stands for: its stored `ref` (set on every submission, and the
 * only carrier of ids no handle can hold), else what its handle says (records written before `ref` existed).
 */
export function recordRef(rec: { handle: string; ref?: JobRef | undefined }): JobRef | undefined {
  return rec.ref ?? decodeHandle(rec.handle);
}

/** Kinds whose status endpoint exists (everything but custom avatars and ledger-only submissions). */
export function isPollable(ref: JobRef): boolean {
  return ref.kind !== 'custom_avatar' && ref.kind !== 'submission';
}
