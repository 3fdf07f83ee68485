/**
 * The blob tables' statements, one text for SQLite and PostgreSQL (`$n` placeholders: node:sqlite accepts them
 * as numbered parameters) over the two tables `<prefix>blobs` and `<prefix>blob_chunks` (migration 6 in
 * sqlite.ts and pg-schema.ts). Each store runs them with its own driver (blobs-sqlite.ts, blobs-pg.ts).
 */
export function blobSql(prefix: '' | 'genplat_') {
  const b = `${prefix}blobs`;
  const c = `${prefix}blob_chunks`;
  return {
    create: `INSERT INTO ${b} (id, purpose, owner, kind, state, content_type, filename, created_at, expires_at, accepted, fetched)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, 0)`,
    get: `SELECT * FROM ${b} WHERE id = $1`,
    pendingUploads: `SELECT count(*) AS n FROM ${b} WHERE purpose = 'upload' AND owner = $1 AND state = 'pending' AND expires_at > $2`,
    claim: `UPDATE ${b} SET state = 'receiving' WHERE id = $1 AND state = 'pending' AND expires_at > $2`,
    putChunk: `INSERT INTO ${c} (blob_id, n, bytes) VALUES ($1, $2, $3)`,
    chunk: `SELECT bytes FROM ${c} WHERE blob_id = $1 AND n = $2`,
    complete: `UPDATE ${b} SET state = 'complete', size = $2, sha256 = $3, content_type = $4, expires_at = $5 WHERE id = $1`,
    accepted: `UPDATE ${b} SET accepted = 1 WHERE id = $1 RETURNING fetched`,
    fetched: `UPDATE ${b} SET fetched = 1 WHERE id = $1 RETURNING accepted`,
    removeChunks: `DELETE FROM ${c} WHERE blob_id = $1`,
    remove: `DELETE FROM ${b} WHERE id = $1`,
    expiredChunks: `DELETE FROM ${c} WHERE blob_id IN (SELECT id FROM ${b} WHERE expires_at < $1)`,
    expired: `DELETE FROM ${b} WHERE expires_at < $1`,
  };
}

/** A row of either driver as a `BlobRow` (numbers may come back as strings from pg BIGINT). */
export function blobRowFrom(r: Record<string, unknown>) {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    id: String(r.id),
    purpose: r.purpose as 'upload' | 'staged',
    owner: (r.owner as string | null) ?? null,
    kind: (r.kind as string | null) ?? null,
    state: r.state as 'pending' | 'receiving' | 'complete',
    contentType: (r.content_type as string | null) ?? null,
    filename: (r.filename as string | null) ?? null,
    size: num(r.size),
    sha256: (r.sha256 as string | null) ?? null,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
    accepted: Number(r.accepted) === 1,
    fetched: Number(r.fetched) === 1,
  };
}
