/** The blob tables on SQLite (blobs.ts), on the store's own connection. */
import type { DatabaseSync } from 'node:sqlite';
import type { BlobStore } from './blobs.js';
import { blobRowFrom, blobSql } from './blobs-sql.js';

// SQLite numbers `$1` by first appearance; `?1` is numbered by its digits, as PostgreSQL's `$1` is.
const sqlite = (s: string) => s.replace(/\$(\d+)/g, '?$1');

export function sqliteBlobs(db: DatabaseSync): BlobStore {
  const q = Object.fromEntries(Object.entries(blobSql('')).map(([k, s]) => [k, db.prepare(sqlite(s))])) as Record<
    keyof ReturnType<typeof blobSql>,
    ReturnType<DatabaseSync['prepare']>
  >;
  const tx = <T>(fn: () => T): T => {
    db.exec('BEGIN IMMEDIATE');
    try {
      const out = fn();
      db.exec('COMMIT');
      return out;
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
  };
  return {
    async create(r, now) {
      q.create.run(r.id, r.purpose, r.owner, r.kind, r.state, r.contentType ?? null, r.filename, now, r.expiresAt);
    },
    async get(id) {
      const row = q.get.get(id) as Record<string, unknown> | undefined;
      return row ? blobRowFrom(row) : undefined;
    },
    async pendingUploads(owner, now) {
      return Number((q.pendingUploads.get(owner, now) as { n: number | bigint }).n);
    },
    async claim(id, now) {
      return Number(q.claim.run(id, now).changes) === 1;
    },
    async putChunk(id, n, bytes) {
      q.putChunk.run(id, n, bytes);
    },
    async chunk(id, n) {
      const row = q.chunk.get(id, n) as { bytes: Uint8Array } | undefined;
      return row ? Buffer.from(row.bytes) : undefined;
    },
    async complete(id, f) {
      q.complete.run(id, f.size, f.sha256, f.contentType, f.expiresAt);
    },
    async markAccepted(id) {
      const row = q.accepted.get(id) as { fetched: number } | undefined;
      return Number(row?.fetched) === 1;
    },
    async markFetched(id) {
      const row = q.fetched.get(id) as { accepted: number } | undefined;
      return Number(row?.accepted) === 1;
    },
    async remove(id) {
      tx(() => {
        q.removeChunks.run(id);
        q.remove.run(id);
      });
    },
    async sweep(now) {
      return tx(() => {
        q.expiredChunks.run(now);
        return Number(q.expired.run(now).changes);
      });
    },
  };
}
