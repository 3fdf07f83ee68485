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
 * Each id part is percent-encoded, so ids containing ':' survive.
 */
import { z } from 'zod';

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

const enc = (s: string) => encodeURIComponent(s);

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
  if (decoded.some((p) => p.length === 0 || p.length > 256)) return undefined;
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

/** Kinds whose status endpoint exists (everything but custom avatars and ledger-only submissions). */
export function isPollable(ref: JobRef): boolean {
  return ref.kind !== 'custom_avatar' && ref.kind !== 'submission';
}
