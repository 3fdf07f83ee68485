/**
 * One way to name a file in every media field (issue 22 item 1): a public http(s) URL (as before, guarded by
 * invariant 7), a local path (absolute, or relative to a root / input folder), or `upload:<id>` (a file a person
 * uploaded through the server; src/files/upload-source.ts). Decided by the value's own form, so every field
 * and every tool reads it the same way.
 */
import { isUrlShaped } from '../guards/url-shaped.js';

export type MediaRef = { type: 'url'; url: string } | { type: 'path'; path: string } | { type: 'upload'; id: string };

/** What a field's media must be; the bytes are checked against it (src/files/sniff.ts). */
export type MediaKind = 'image' | 'audio' | 'video';

/** Upload ids are ours (item 4): URL-safe, bounded, so a typo never reaches the disk. */
const UPLOAD_ID = /^[A-Za-z0-9_-]{8,128}$/;

/** Paths longer than this are not real paths on any OS we run on (PATH_MAX is 4096 on Linux). */
export const MAX_PATH_LENGTH = 4096;

export function parseMediaRef(value: string): MediaRef {
  // A Windows drive path (`C:\…`, `C:/…`) reads as a one-letter URL scheme to a URL parser; it is a path.
  if (/^[a-z]:[\\/]/i.test(value)) return { type: 'path', path: value };
  // Anything a URL parser could read as a URL (padded, re-spelt: src/guards/url-shaped.ts) is a URL, so the
  // public-URL guard judges it and a hostile spelling never slips through as "a path".
  if (isUrlShaped(value) || /^data:/i.test(value)) return { type: 'url', url: value };
  if (value.startsWith('upload:')) return { type: 'upload', id: value.slice('upload:'.length) };
  return { type: 'path', path: value };
}

/**
 * The form-only problem of a local reference (no disk access: zod runs synchronously), or undefined.
 * `..` is refused outright rather than normalised: a name that walks up is never what a person meant.
 */
export function localRefFormProblem(ref: MediaRef): string | undefined {
  if (ref.type === 'upload') {
    return UPLOAD_ID.test(ref.id) ? undefined : 'upload reference must be upload:<id> (8-128 letters, digits, _ or -)';
  }
  if (ref.type !== 'path') return undefined;
  if (ref.path.length === 0 || ref.path.length > MAX_PATH_LENGTH) return 'local path is empty or too long';
  if (ref.path.includes('\0')) return 'local path must not contain NUL';
  // Any other `scheme:` (a URL parser's view) is neither; `C:` (one letter) is a Windows drive.
  if (/^[a-z][a-z0-9+.-]+:/i.test(ref.path)) return 'must be a public http(s) URL, a local file path or upload:<id>';
  if (ref.path.split(/[\\/]/).includes('..')) return 'local path must not contain ".."';
  return undefined;
}

/**
 * The media kind of a platform body field, from its name: every media field the platform documents is named
 * `*image_url(s)`, `mask_url`, `voice_url` / `audio_url`, `video_url(s)` (platform-api.md). A local reference in
 * any other field is refused (fail closed: we never stage a file for a field whose kind we cannot check).
 */
export function mediaKindOfField(key: string): MediaKind | undefined {
  const k = key.toLowerCase();
  if (k === 'webhook_url') return undefined;
  if (/(^|_)(image|mask|portrait|photo)(_urls?)?$/.test(k) || /image_urls?$/.test(k) || k === 'image') return 'image';
  if (/(^|_)(voice|audio)(_urls?)?$/.test(k)) return 'audio';
  if (/(^|_)video(_urls?)?$/.test(k)) return 'video';
  return undefined;
}
