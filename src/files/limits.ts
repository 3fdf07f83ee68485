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
