/**
 * Custom-avatar media inputs: each is a public http(s) URL or an absolute local file path (decided by the
 * prefix). URLs go through the public-URL guard in zod; files are checked here before anything is sent:
 * a regular file, 1 byte to 10 MiB (stat only), a name ending in an allowed extension and content whose
 * first bytes are of an allowed type. The content check is what keeps an arbitrary local file (a key, a
 * config) from ever being uploaded to the platform.
 */
import { createHash } from 'node:crypto';
import { open, readFile, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute } from 'node:path';
import { z } from 'zod';
import type { MediaPart } from '../../src/client/types.js';
import { UserInputError } from '../../src/errors.js';
import { confinePath, HARD_LINK_RULE } from '../../src/files/confine.js';
import { localRefFormProblem, parseMediaRef } from '../../src/files/media-ref.js';
import type { UploadSource } from '../../src/files/upload-source.js';
import { publicMediaUrlProblem } from '../../src/guards/url.js';

export type MediaField = 'image' | 'voice';

/** Spec "Limits": custom-avatar files, 10 MiB each (image and voice). */
export const MAX_MEDIA_FILE_BYTES = 10 * 1024 * 1024;
/** Paths longer than this are not real paths on any OS we run on (PATH_MAX is 4096 on Linux). */
const MAX_PATH_LENGTH = 4096;
/** Enough bytes for every signature below (WebP/WAVE need 12). */
const HEADER_BYTES = 16;

interface FileType {
  contentType: string;
  extensions: string[];
  matches(h: Uint8Array): boolean;
}

const ascii = (h: Uint8Array, at: number, s: string) => [...s].every((c, i) => h[at + i] === c.charCodeAt(0));

/** Spec: the platform answers 400 "invalid file type"; these are the types a portrait / voice sample comes in. */
const TYPES: Record<MediaField, FileType[]> = {
  image: [
    {
      contentType: 'image/png',
      extensions: ['.png'],
      matches: (h) => [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => h[i] === b),
    },
    {
      contentType: 'image/jpeg',
      extensions: ['.jpg', '.jpeg'],
      matches: (h) => h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff,
    },
    { contentType: 'image/webp', extensions: ['.webp'], matches: (h) => ascii(h, 0, 'RIFF') && ascii(h, 8, 'WEBP') },
  ],
  voice: [
    {
      contentType: 'audio/mpeg',
      extensions: ['.mp3'],
      // An ID3 tag, or an MPEG audio frame sync (11 set bits) with a non-zero layer (ADTS/AAC has layer 0).
      matches: (h) =>
        ascii(h, 0, 'ID3') || (h[0] === 0xff && ((h[1] ?? 0) & 0xe0) === 0xe0 && ((h[1] ?? 0) & 0x06) !== 0),
    },
    { contentType: 'audio/wav', extensions: ['.wav'], matches: (h) => ascii(h, 0, 'RIFF') && ascii(h, 8, 'WAVE') },
    // MP4 container (`ftyp` box at offset 4); the brand varies (M4A, mp42, isom), so any is accepted.
    { contentType: 'audio/mp4', extensions: ['.m4a'], matches: (h) => ascii(h, 4, 'ftyp') },
    { contentType: 'audio/ogg', extensions: ['.ogg'], matches: (h) => ascii(h, 0, 'OggS') },
  ],
};

const extensionsOf = (field: MediaField) => TYPES[field].flatMap((t) => t.extensions);

/** True when the value names a local file (anything not starting with http:// or https://). */
export function isLocalMedia(value: string): boolean {
  return !/^https?:\/\//i.test(value);
}

/** True when the value is an `upload:<id>` reference (a file a person uploaded over HTTP: src/files/uploads.ts). */
export function isUploadRef(value: string): boolean {
  return value.startsWith('upload:');
}

/**
 * The zod field: a public http(s) URL (full guard), an absolute path or `upload:<id>` (form only; the disk and
 * store checks need async I/O and run in the tool's `validate`).
 */
export function mediaSource(description: string) {
  return z
    .string()
    .min(1)
    .max(MAX_PATH_LENGTH)
    .describe(description)
    .superRefine((value, ctx) => {
      const problem = isUploadRef(value)
        ? localRefFormProblem(parseMediaRef(value))
        : isLocalMedia(value)
          ? isAbsolute(value)
            ? undefined
            : 'must be a public http(s) URL, an absolute local file path or upload:<id>'
          : publicMediaUrlProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
}

export interface CheckedFile {
  path: string;
  filename: string;
  contentType: string;
  size: number;
}

/**
 * Checks a local media file without reading more than its first bytes.
 * @throws UserInputError naming `field`: missing, not a regular file, empty, over 10 MiB, wrong type.
 */
export async function checkMediaFile(field: MediaField, given: string, roots: string[]): Promise<CheckedFile> {
  // Confined first (issue 22): the real path inside an allowed folder, symlinks resolved, or refused unread.
  const path = await confinePath(field, given, roots);
  const filename = basename(path);
  // Typed as `never`-returning so TypeScript narrows after each failed check.
  const fail: (rule: string) => never = (rule) => {
    throw new UserInputError(field, `file ${path}: ${rule}`);
  };
  const allowed = extensionsOf(field);
  if (!allowed.includes(extname(filename).toLowerCase())) {
    fail(`the name must end in ${allowed.join(', ')}`);
  }
  const info = await stat(path).catch((err: NodeJS.ErrnoException) =>
    fail(err.code === 'ENOENT' ? 'does not exist' : `cannot be read (${err.code ?? 'error'})`),
  );
  if (!info.isFile()) fail('is not a regular file');
  // As for every local file (src/files/confine.ts): a second name may be outside the folders.
  if (info.nlink > 1) fail(HARD_LINK_RULE(info.nlink));
  if (info.size === 0) fail('is empty');
  if (info.size > MAX_MEDIA_FILE_BYTES) {
    fail(`is ${(info.size / 1024 / 1024).toFixed(1)} MiB; at most 10 MiB is accepted`);
  }
  const header = new Uint8Array(HEADER_BYTES);
  try {
    const fh = await open(path, 'r');
    try {
      await fh.read(header, 0, HEADER_BYTES, 0);
    } finally {
      await fh.close();
    }
  } catch (err) {
    fail(`cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  // The bytes decide the content type; a mislabelled but valid file is sent with its real type.
  const type = TYPES[field].find((t) => t.matches(header));
  if (!type) {
    fail(
      `content is not ${TYPES[field].map((t) => t.contentType.split('/')[1]).join(', ')} (checked by its first bytes)`,
    );
  }
  return { path, filename, contentType: type.contentType, size: info.size };
}

/**
 * An `upload:<id>` of the caller, checked as a local file is: at most 10 MiB, of a type this field takes (from
 * the bytes, sniffed when it was uploaded). Returns its bytes (≤ 10 MiB: the multipart body holds them anyway).
 * @throws UserInputError naming `field`: unknown (or another caller's), too large, wrong type.
 */
export async function uploadedMedia(
  field: MediaField,
  value: string,
  uploads: UploadSource | undefined,
  owner: string | undefined,
): Promise<MediaPart & { bytes: Uint8Array }> {
  const up = await uploads?.open(value.slice('upload:'.length), owner);
  if (!up) throw new UserInputError(field, 'unknown upload reference');
  if (up.size > MAX_MEDIA_FILE_BYTES) {
    throw new UserInputError(field, `upload is ${(up.size / 1024 / 1024).toFixed(1)} MiB; at most 10 MiB is accepted`);
  }
  const type = TYPES[field].find((t) => t.contentType === up.contentType);
  if (!type) {
    throw new UserInputError(
      field,
      `upload is ${up.contentType}, not ${TYPES[field].map((t) => t.contentType.split('/')[1]).join(', ')}`,
    );
  }
  const chunks: Buffer[] = [];
  for await (const c of up.open()) chunks.push(c as Buffer);
  const bytes = Buffer.concat(chunks);
  // The stored bytes are the recorded ones (the fingerprint binds this content through the part's bytes).
  if (bytes.length !== up.size || createHash('sha256').update(bytes).digest('hex') !== up.sha256) {
    throw new UserInputError(field, 'upload could not be read back intact; upload it again');
  }
  const ext = type.extensions[0] ?? '';
  const filename = up.filename.toLowerCase().endsWith(ext) ? up.filename : `${up.filename}${ext}`;
  return { bytes: new Uint8Array(bytes), filename, contentType: type.contentType };
}

/**
 * The multipart part for one input: a URL as-is, an upload's bytes, or the file's bytes after checking it
 * again (it may have changed since `validate`).
 * @throws UserInputError naming `field` when the file no longer passes the checks.
 */
export async function mediaPart(
  field: MediaField,
  value: string,
  roots: string[],
  uploads?: { source: UploadSource | undefined; owner: string | undefined },
): Promise<MediaPart> {
  if (isUploadRef(value)) return uploadedMedia(field, value, uploads?.source, uploads?.owner);
  if (!isLocalMedia(value)) return { url: value };
  const file = await checkMediaFile(field, value, roots);
  const bytes = await readFile(file.path);
  if (bytes.byteLength > MAX_MEDIA_FILE_BYTES) {
    throw new UserInputError(field, `file ${value}: grew past 10 MiB while being read`);
  }
  return { bytes: new Uint8Array(bytes), filename: file.filename, contentType: file.contentType };
}

/** What the consent prompt and the ledger show for an input: a file's name, or a URL's host and file name. */
export function describeMedia(value: string): string {
  if (isUploadRef(value)) return value;
  if (isLocalMedia(value)) return `file ${basename(value)}`;
  try {
    const u = new URL(value);
    return `${u.host}/…/${basename(u.pathname) || ''}`;
  } catch {
    return 'a URL';
  }
}
