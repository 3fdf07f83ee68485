/**
 * Self-describing job handles: `<kind>:<ids…>`. A handle alone is enough to find the status endpoint, so a
 * job can be followed even without the ledger (or when it was started elsewhere).
 *
 * The kinds, the ids each handle carries and their status endpoints are the registry's (src/jobs/kinds/, one
 * file per kind; e.g. `model:<media>:<request_id>`, `upscale:<video_type>:<project_id>:<video_id>:<billing_id>`,
 * `submission:<ledger id>` for a submission with no platform id). This file is the generic codec.
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
import { findKind, JOB_KINDS, type JobKind, type JobRef, kindDef } from './kinds/index.js';

export type { ModelMedia } from './kinds/model.js';
// The kinds and their ref shapes live in the registry (src/jobs/kinds/); re-exported for existing callers.
export { JOB_KINDS, type JobKind, type JobRef };
export const JobKindSchema = z.enum(JOB_KINDS);

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
  return `${ref.kind}\u0000${wellFormed(kindDef(ref.kind).identity(ref))}`;
}

/** The handle of `ref`, or undefined when no handle can carry its ids (see the file comment). */
export function tryEncodeHandle(ref: JobRef): string | undefined {
  const parts = kindDef(ref.kind).parts(ref);
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
  return [ref.kind, ...kindDef(ref.kind).parts(ref).map(enc)].join(':');
}

/** Parses a handle; returns undefined when it is not one of ours (the caller reports which field was wrong). */
export function decodeHandle(handle: string): JobRef | undefined {
  const parts = handle.trim().split(':');
  const def = findKind(parts[0]!);
  if (!def) return undefined;
  let decoded: string[];
  try {
    decoded = parts.slice(1).map((p) => decodeURIComponent(p));
  } catch {
    return undefined;
  }
  if (decoded.some((p) => p.length === 0 || p.length > MAX_ID_LENGTH)) return undefined;
  return def.fromParts(decoded);
}

/**
 * The platform reference a ledger record stands for: its stored `ref` (set on every submission, and the
 * only carrier of ids no handle can hold), else what its handle says (records written before `ref` existed).
 */
export function recordRef(rec: { handle: string; ref?: JobRef | undefined }): JobRef | undefined {
  return rec.ref ?? decodeHandle(rec.handle);
}

/** Kinds whose status endpoint exists (the registry says; custom avatars and store-only submissions have none). */
export function isPollable(ref: JobRef): boolean {
  return kindDef(ref.kind).status !== null;
}
