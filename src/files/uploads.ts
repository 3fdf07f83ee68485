/**
 * Uploads from hosts without a file system (issue 22 item 4): `request_upload` hands out a signed, single-use,
 * expiring link (`/upload/<id>.<MAC>`, the one signer, purpose `upload-link`) bound to its caller; the page
 * behind it (upload-route.ts) stores the bytes in the shared store's blob table, and `upload:<id>` then names
 * them in any media field — for that caller only (`storeUploads`, the `UploadSource` of the paid pipeline).
 */
import { randomBytes } from 'node:crypto';
import { GenplatError } from '../errors.js';
import { open, sign } from '../signer.js';
import { type BlobStore, readBlob } from '../store/blobs.js';
import type { MediaKind } from './media-ref.js';
import type { UploadSource } from './upload-source.js';

export const UPLOAD_PREFIX = '/upload/';
/** 15 minutes: long enough to find a file and send 200 MiB on a slow line; short enough that a leaked link dies. */
export const UPLOAD_LINK_TTL_MS = 15 * 60 * 1000;
/** 24 hours: an uploaded file is kept for the conversation that asked for it, then swept. */
export const UPLOAD_KEEP_MS = 24 * 60 * 60 * 1000;
const MAC_BYTES = 16;

export interface UploadLink {
  url: string;
  expires_at: string;
  /** What the page will answer once the file is in (the agent can name it in advance). */
  reference: string;
}

/** A file-name hint as it may be stored and shown: base name only, safe characters, bounded. */
export function safeFilename(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base
    .replace(/[^A-Za-z0-9._ -]+/g, '_')
    .replace(/^\.+/, '')
    .trim()
    .slice(0, 100);
  return clean || fallback;
}

/**
 * Creates the pending upload and its link. `base` = GENPLAT_PUBLIC_URL, else this server's listening origin.
 * @throws GenplatError when `owner` already holds `maxPending` unused, unexpired links (GENPLAT_UPLOAD_MAX_PENDING):
 *   each is a row in the shared store, so a loop asking for links must stop somewhere. Counted, then created: two
 *   requests of one caller at the same instant may both pass at the cap (one over, never unbounded).
 */
export async function createUploadLink(
  deps: { blobs: BlobStore; key: Buffer; base: string; now: number; ttlMs?: number; maxPending?: number },
  owner: string,
  kind: MediaKind,
  filename: string | undefined,
): Promise<UploadLink> {
  if (deps.maxPending !== undefined && (await deps.blobs.pendingUploads(owner, deps.now)) >= deps.maxPending) {
    throw new GenplatError(
      `You already hold ${deps.maxPending} unused upload links (the most one caller may hold at once).`,
      'Use one of the links already given (or wait until they expire, 15 minutes after each was made), then ask again.',
    );
  }
  const id = randomBytes(16).toString('base64url');
  const expiresAt = deps.now + (deps.ttlMs ?? UPLOAD_LINK_TTL_MS);
  await deps.blobs.create(
    {
      id,
      purpose: 'upload',
      owner,
      kind,
      state: 'pending',
      filename: safeFilename(filename, `${kind}-upload`),
      expiresAt,
    },
    deps.now,
  );
  return {
    url: `${deps.base}${UPLOAD_PREFIX}${sign(deps.key, 'upload-link', id, { macBytes: MAC_BYTES })}`,
    expires_at: new Date(expiresAt).toISOString(),
    reference: `upload:${id}`,
  };
}

/** The upload id a `/upload/…` path names, when its MAC is ours. */
export function uploadIdOf(path: string, key: Buffer): string | undefined {
  if (!path.startsWith(UPLOAD_PREFIX)) return undefined;
  return open(key, 'upload-link', path.slice(UPLOAD_PREFIX.length), { macBytes: MAC_BYTES });
}

/** `upload:<id>` for the paid pipeline: complete, unexpired, and the caller's own (else "unknown"). */
export function storeUploads(blobs: BlobStore, now: () => number = Date.now): UploadSource {
  return {
    async open(id, owner) {
      const row = await blobs.get(id);
      if (row?.purpose !== 'upload' || row.state !== 'complete' || row.expiresAt <= now()) return undefined;
      if (row.owner !== (owner ?? null) || row.size === null || !row.sha256 || !row.contentType) return undefined;
      return {
        sha256: row.sha256,
        size: row.size,
        contentType: row.contentType,
        filename: row.filename ?? 'upload',
        open: () => readBlob(blobs, id),
      };
    },
  };
}
