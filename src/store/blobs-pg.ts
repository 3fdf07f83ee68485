/** The blob tables on PostgreSQL (blobs.ts), on the store's pool. */
import type pg from 'pg';
import type { BlobStore } from './blobs.js';
import { blobRowFrom, blobSql } from './blobs-sql.js';

const q = blobSql('genplat_');

/** `retryReads`: the store's retry of a read whose stale pooled connection died under it (postgres.ts). */
export function pgBlobs(
  pool: pg.Pool,
  retryReads: <T>(run: () => Promise<T>) => Promise<T> = (run) => run(),
): BlobStore {
  const rows = async (sql: string, args: unknown[]) => (await pool.query(sql, args)).rows as Record<string, unknown>[];
  const read = (sql: string, args: unknown[]) => retryReads(() => rows(sql, args));
  const tx = async <T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> => {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      c.release();
    }
  };
  return {
    async create(r, now) {
      await rows(q.create, [
        r.id,
        r.purpose,
        r.owner,
        r.kind,
        r.state,
        r.contentType ?? null,
        r.filename,
        now,
        r.expiresAt,
      ]);
    },
    async get(id) {
      const [row] = await read(q.get, [id]);
      return row ? blobRowFrom(row) : undefined;
    },
    async pendingUploads(owner, now) {
      const [row] = await read(q.pendingUploads, [owner, now]);
      return Number(row?.n ?? 0);
    },
    async claim(id, now) {
      return ((await pool.query(q.claim, [id, now])).rowCount ?? 0) === 1;
    },
    async putChunk(id, n, bytes) {
      await rows(q.putChunk, [id, n, bytes]);
    },
    async chunk(id, n) {
      const [row] = await read(q.chunk, [id, n]);
      return row ? (row.bytes as Buffer) : undefined;
    },
    async complete(id, f) {
      await rows(q.complete, [id, f.size, f.sha256, f.contentType, f.expiresAt]);
    },
    async markAccepted(id) {
      const [row] = await rows(q.accepted, [id]);
      return Number(row?.fetched) === 1;
    },
    async markFetched(id) {
      const [row] = await rows(q.fetched, [id]);
      return Number(row?.accepted) === 1;
    },
    async remove(id) {
      await tx(async (c) => {
        await c.query(q.removeChunks, [id]);
        await c.query(q.remove, [id]);
      });
    },
    async sweep(now) {
      return tx(async (c) => {
        await c.query(q.expiredChunks, [now]);
        return (await c.query(q.expired, [now])).rowCount ?? 0;
      });
    },
  };
}
