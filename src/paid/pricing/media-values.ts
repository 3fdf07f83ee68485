/**
 * Which values of a call are media items, for a price "per reference image" (issue 27): every value the
 * platform or our file staging may read as a file — a URL-shaped string (src/guards/url-shaped.ts), a data
 * URI, an `upload:<id>` reference or a local path — under ANY key, and every string under a key that names
 * media (`*url*`, `mask`, `image`…). Counting too many only raises the quote; counting too few under-quotes,
 * so a value is media when any of these says so.
 */
import { mediaKindOfField } from '../../files/media-ref.js';
import { isUrlShaped } from '../../guards/url-shaped.js';

/** `/x`, `./x`, `../x`, `~/x`, `C:\x`, `\\host\x`, or one word ending in a file extension (`cat.png`). */
const LOCAL_PATH = /^(?:\/|\.{1,2}[\\/]|~[\\/]|[a-z]:[\\/]|\\\\)|^[^\s/\\]+\.[a-z][a-z0-9]{1,4}$/i;

/** A string a fetcher or our stager may read as a file. */
export function isMediaValue(value: string): boolean {
  const v = value.trim();
  if (v === '') return false;
  return isUrlShaped(v) || /^data:/i.test(v) || v.startsWith('upload:') || LOCAL_PATH.test(v);
}

/** A key whose string values are media whatever they look like. */
export function isMediaKey(key: string): boolean {
  return /url/i.test(key) || mediaKindOfField(key) !== undefined;
}

/** Media items in `value` (under `key`), at any depth: strings in lists and objects count under their own key. */
export function mediaItems(key: string, value: unknown): number {
  if (typeof value === 'string') return isMediaKey(key) || isMediaValue(value) ? 1 : 0;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + mediaItems(key, v), 0);
  if (value && typeof value === 'object') {
    return Object.entries(value).reduce((n, [k, v]) => n + mediaItems(k, v), 0);
  }
  return 0;
}
