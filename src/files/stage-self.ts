/**
 * Self-served staging (issue 22 item 3, HTTP mode with GENPLAT_PUBLIC_URL and no bucket): the file is written
 * into the shared store's blob table (src/store/blobs.ts, 1 MiB rows: bounded memory) and the platform gets
 * `<public URL>/staged/<id>.<MAC>`, served by any instance on the same store (staged-route.ts).
 *
 * - Unguessable: a random 128-bit id, and the MAC (the one signer, purpose `staged-file`) so a guessed or
 *   altered id is refused before the store is read.
 * - Expiring: the row's expiry (GENPLAT_STAGING_TTL_S, the same lifetime as a bucket's presigned URL).
 * - Single job: one row per staged file of one paid call; deleted once the job was accepted and the platform
 *   fetched it all, at the lifetime's end otherwise, and by `sweep` after a restart.
 */
import { randomBytes } from 'node:crypto';
import { open, sign } from '../signer.js';
import { type BlobStore, writeChunks } from '../store/blobs.js';
import type { Stager } from './stage-s3.js';

export const STAGED_PREFIX = '/staged/';
/** 16 bytes of MAC (128 bits) keep the URL short; the signer's floor. */
const MAC_BYTES = 16;

export interface SelfStagerDeps {
  blobs: BlobStore;
  /** The store's consent key (the signer's root). */
  key: () => Promise<Buffer>;
  /** The public origin the platform reaches this server at (GENPLAT_PUBLIC_URL), no trailing slash. */
  base: () => string;
  ttlSeconds: number;
  now?: () => number;
}

/** The path part `/staged/<id>.<MAC>` for `id`. */
export function stagedPath(id: string, key: Buffer): string {
  return `${STAGED_PREFIX}${sign(key, 'staged-file', id, { macBytes: MAC_BYTES })}`;
}

/** The id a `/staged/…` path names, when its MAC is ours; undefined for anything else. */
export function stagedIdOf(path: string, key: Buffer): string | undefined {
  if (!path.startsWith(STAGED_PREFIX)) return undefined;
  return open(key, 'staged-file', path.slice(STAGED_PREFIX.length), { macBytes: MAC_BYTES });
}

export function selfStager(deps: SelfStagerDeps): Stager {
  const now = deps.now ?? Date.now;
  const { blobs } = deps;
  return {
    ttlSeconds: deps.ttlSeconds,
    async stage(body, file) {
      const id = randomBytes(16).toString('base64url');
      const expiresAt = now() + deps.ttlSeconds * 1000;
      await blobs.create(
        { id, purpose: 'staged', owner: null, kind: null, state: 'receiving', filename: null, expiresAt },
        now(),
      );
      try {
        // Exactly the quoted size: a file that grew since consent is refused here, one that shrank by the hash.
        const { size, sha256 } = await writeChunks(blobs, id, body, file.size);
        await blobs.complete(id, { size, sha256, contentType: file.contentType, expiresAt });
      } catch (err) {
        await blobs.remove(id).catch(() => undefined);
        throw err;
      }
      return { key: id, url: `${deps.base()}${stagedPath(id, await deps.key())}` };
    },
    remove: (id) => blobs.remove(id),
    async accepted(id) {
      if (await blobs.markAccepted(id)) await blobs.remove(id);
    },
    sweep: (at) => blobs.sweep(at),
  };
}
