/**
 * Size caps per media kind for local files (issue 22 item 2), checked from fstat before a byte is read.
 * The platform's own limits where it states one (platform-api.md "Limits"): reference video and edit sources
 * 200 MiB; voice audio is at most 120 s (a 120 s 48 kHz stereo 16-bit WAV is ~22 MiB, so 50 MiB leaves room for
 * 24-bit); images have no stated cap, so 30 MiB (a 50-megapixel JPEG) is our own bound.
 */
import type { MediaKind } from './media-ref.js';

const MiB = 1024 * 1024;

export const MAX_LOCAL_BYTES: Record<MediaKind, number> = {
  image: 30 * MiB,
  audio: 50 * MiB,
  video: 200 * MiB,
};

/** Per-caller bounds on uploads (issue 27 item 6): settings `GENPLAT_UPLOAD_*` (src/config.ts), these defaults. */
export interface UploadLimits {
  /** Unused, unexpired upload links one caller may hold; `request_upload` refuses the next. */
  maxPendingPerCaller: number;
  /** Upload bodies one caller may be sending to this instance at once; the next PUT gets 429. */
  maxInFlightPerCaller: number;
  /** Milliseconds without a byte of an upload body before the connection is closed (and its rows deleted). */
  idleTimeoutMs: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  // 10: a person uploads a few files for one conversation (a portrait, a voice sample, a product shot); a link
  // lives 15 min. More pending than that is a loop, not a person.
  maxPendingPerCaller: 10,
  // 3: the page and the picker's panel send one file at a time; a person with two tabs open still fits.
  maxInFlightPerCaller: 3,
  // 30 s: a phone's connection stalls for a few seconds between cells (TCP retransmits back off to ~15 s);
  // a body silent for longer is a held-open connection, which would hold its memory (a 1 MiB row) and a slot.
  idleTimeoutMs: 30_000,
};
