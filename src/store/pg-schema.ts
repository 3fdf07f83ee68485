/**
 * The PostgreSQL schema and its migrations: append-only steps, run by the role that owns the tables (the
 * migration role, or the one role of a single-role setup) under a session advisory lock, so instances starting
 * together migrate once. A role that does not own them never migrates: it is told which command to run
 * (docs/storage.md).
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { approvalMigration } from './approvals-sql.js';
import { eventMigration } from './events-sql.js';
import { ACTIVE_ROW, COLUMNS, CONSENT_KEY_BYTES, fromData, toRow } from './record.js';
import { SCHEMA_VERSION, SchemaMigrationNeededError, SchemaTooNewError } from './types.js';

/** First key of every advisory lock we take ('genp'), so ours never collide with another application's. */
export const LOCK_CLASS = 0x67656e70;
export const MIGRATE_LOCK = 0;

const $ = (n: number) => Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ');
export const INSERT = `INSERT INTO genplat_jobs (${COLUMNS.join(', ')}) VALUES (${$(COLUMNS.length)})`;
export const UPDATE = `UPDATE genplat_jobs SET ${COLUMNS.slice(1)
  .map((c, i) => `${c} = $${i + 1}`)
  .join(', ')} WHERE id = $${COLUMNS.length}`;

/** Index i = the statements that take schema i to i+1. Append only; never edit a shipped migration. */
export const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE genplat_jobs (
      seq BIGSERIAL PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      owner TEXT,
      fingerprint TEXT NOT NULL,
      outcome TEXT NOT NULL,
      status TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      handle TEXT NOT NULL,
      estimate_credits DOUBLE PRECISION,
      charged DOUBLE PRECISION,
      refunded DOUBLE PRECISION,
      data TEXT NOT NULL
    )`,
    'CREATE INDEX genplat_jobs_created ON genplat_jobs (created_at)',
    'CREATE INDEX genplat_jobs_fingerprint ON genplat_jobs (fingerprint, created_at)',
    'CREATE INDEX genplat_jobs_handle ON genplat_jobs (handle)',
    'CREATE INDEX genplat_jobs_owner ON genplat_jobs (owner, created_at)',
    'CREATE TABLE genplat_nonces (hash TEXT PRIMARY KEY, expires_at BIGINT NOT NULL)',
    'CREATE TABLE genplat_leases (job_key TEXT PRIMARY KEY, holder TEXT NOT NULL, until_ms BIGINT NOT NULL)',
  ],
  // 2: the runtime's lookups as columns (see sqlite.ts migration 2).
  [
    'ALTER TABLE genplat_jobs ADD COLUMN platform_estimate DOUBLE PRECISION',
    'ALTER TABLE genplat_jobs ADD COLUMN job_key TEXT',
    'ALTER TABLE genplat_jobs ADD COLUMN exclusive_key TEXT',
    'CREATE INDEX genplat_jobs_job_key ON genplat_jobs (job_key, created_at)',
    'CREATE INDEX genplat_jobs_exclusive ON genplat_jobs (exclusive_key, created_at)',
  ],
  // 3: the audit trail (see sqlite.ts migration 3), append-only: a trigger refuses UPDATE, DELETE and TRUNCATE.
  [
    `CREATE TABLE genplat_audit (
      seq BIGSERIAL PRIMARY KEY,
      at BIGINT NOT NULL,
      event TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      owner TEXT,
      tool TEXT NOT NULL,
      kind TEXT,
      quote_credits DOUBLE PRECISION,
      consent TEXT,
      request_id TEXT,
      outcome TEXT NOT NULL,
      status TEXT NOT NULL,
      charged DOUBLE PRECISION,
      refunded DOUBLE PRECISION,
      platform_estimate DOUBLE PRECISION,
      handle TEXT NOT NULL
    )`,
    'CREATE INDEX genplat_audit_ledger ON genplat_audit (ledger_id, event)',
    'CREATE INDEX genplat_audit_admit ON genplat_audit (event, at)',
    `CREATE FUNCTION genplat_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN RAISE EXCEPTION 'the audit trail is append-only'; END $$`,
    `CREATE TRIGGER genplat_audit_no_change BEFORE UPDATE OR DELETE ON genplat_audit
     FOR EACH ROW EXECUTE FUNCTION genplat_audit_append_only()`,
    `CREATE TRIGGER genplat_audit_no_truncate BEFORE TRUNCATE ON genplat_audit
     FOR EACH STATEMENT EXECUTE FUNCTION genplat_audit_append_only()`,
  ],
  // 4: least privilege (docs/storage.md). A job's identity and quote are fixed at admission: the ceilings and
  // the duplicate guard read these columns, so a role that may UPDATE rows (the runtime role settles and
  // observes) must not be able to move a job out of today (created_at), to another caller (owner), out of the
  // duplicate guard (fingerprint), or lower its quote (estimate_credits), nor rewrite them in the JSON copy
  // every reader uses. A refused POST is the one legitimate way a record stops counting (outcome 'rejected',
  // from 'pending' only). The trigger belongs to the table's owner: a role that does not own the table cannot
  // disable or drop it (session_replication_role, which skips triggers, is superuser-only).
  [
    `CREATE FUNCTION genplat_jobs_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE k TEXT;
     BEGIN
       IF NEW.seq IS DISTINCT FROM OLD.seq OR NEW.id IS DISTINCT FROM OLD.id
          OR NEW.created_at IS DISTINCT FROM OLD.created_at OR NEW.fingerprint IS DISTINCT FROM OLD.fingerprint
          OR NEW.owner IS DISTINCT FROM OLD.owner OR NEW.estimate_credits IS DISTINCT FROM OLD.estimate_credits THEN
         RAISE EXCEPTION 'genplat_jobs: id, created_at, fingerprint, owner and estimate_credits are fixed at admission';
       END IF;
       IF NEW.data IS DISTINCT FROM OLD.data THEN
         FOREACH k IN ARRAY ARRAY['id', 'createdAt', 'fingerprint', 'owner', 'tool', 'estimate'] LOOP
           IF (NEW.data::jsonb -> k) IS DISTINCT FROM (OLD.data::jsonb -> k) THEN
             RAISE EXCEPTION 'genplat_jobs: the record''s % is fixed at admission', k;
           END IF;
         END LOOP;
       END IF;
       IF NEW.outcome = 'rejected' AND OLD.outcome NOT IN ('pending', 'rejected') THEN
         RAISE EXCEPTION 'genplat_jobs: only a pending record can become rejected (its spend would stop counting)';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER genplat_jobs_fixed BEFORE UPDATE ON genplat_jobs
     FOR EACH ROW EXECUTE FUNCTION genplat_jobs_fixed()`,
  ],
  // 5: campaigns (issue 21), same as SQLite's step 5: items carry their campaign's id and fingerprint as
  // columns (fixed at admission), and a `queued` item (admitted, unsent) may become rejected when released.
  [
    'ALTER TABLE genplat_jobs ADD COLUMN campaign_id TEXT',
    'ALTER TABLE genplat_jobs ADD COLUMN campaign_fp TEXT',
    'CREATE INDEX genplat_jobs_campaign ON genplat_jobs (campaign_id)',
    'CREATE INDEX genplat_jobs_campaign_fp ON genplat_jobs (campaign_fp)',
    `CREATE INDEX genplat_jobs_queued ON genplat_jobs (outcome) WHERE outcome = 'queued'`,
    `CREATE OR REPLACE FUNCTION genplat_jobs_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE k TEXT;
     BEGIN
       IF NEW.seq IS DISTINCT FROM OLD.seq OR NEW.id IS DISTINCT FROM OLD.id
          OR NEW.created_at IS DISTINCT FROM OLD.created_at OR NEW.fingerprint IS DISTINCT FROM OLD.fingerprint
          OR NEW.owner IS DISTINCT FROM OLD.owner OR NEW.estimate_credits IS DISTINCT FROM OLD.estimate_credits
          OR NEW.campaign_id IS DISTINCT FROM OLD.campaign_id OR NEW.campaign_fp IS DISTINCT FROM OLD.campaign_fp THEN
         RAISE EXCEPTION 'genplat_jobs: id, created_at, fingerprint, owner, campaign and estimate_credits are fixed at admission';
       END IF;
       IF NEW.data IS DISTINCT FROM OLD.data THEN
         FOREACH k IN ARRAY ARRAY['id', 'createdAt', 'fingerprint', 'owner', 'tool', 'estimate', 'campaign'] LOOP
           IF (NEW.data::jsonb -> k) IS DISTINCT FROM (OLD.data::jsonb -> k) THEN
             RAISE EXCEPTION 'genplat_jobs: the record''s % is fixed at admission', k;
           END IF;
         END LOOP;
       END IF;
       IF NEW.outcome = 'rejected' AND OLD.outcome NOT IN ('queued', 'pending', 'rejected') THEN
         RAISE EXCEPTION 'genplat_jobs: only a queued or pending record can become rejected (its spend would stop counting)';
       END IF;
       RETURN NEW;
     END $$`,
  ],
  // 6: files kept in the store (see sqlite.ts migration 6, src/store/blobs.ts).
  [
    `CREATE TABLE genplat_blobs (
      id TEXT PRIMARY KEY,
      purpose TEXT NOT NULL,
      owner TEXT,
      kind TEXT,
      state TEXT NOT NULL,
      content_type TEXT,
      filename TEXT,
      size BIGINT,
      sha256 TEXT,
      created_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      accepted SMALLINT NOT NULL DEFAULT 0,
      fetched SMALLINT NOT NULL DEFAULT 0
    )`,
    'CREATE INDEX genplat_blobs_expires ON genplat_blobs (expires_at)',
    `CREATE TABLE genplat_blob_chunks (
      blob_id TEXT NOT NULL,
      n INTEGER NOT NULL,
      bytes BYTEA NOT NULL,
      PRIMARY KEY (blob_id, n)
    )`,
  ],
  // ---- issue 27 item 6 (spool helper): the spend columns the ceilings read (same rule as sqlite.ts step 7).
  // 7: `charged` and `refunded` cannot be moved to zero what the ceilings read (record.ts `spendSql`):
  // - a refund never exceeds the charge (a refund above it would take the job's spend to 0, or another job's);
  // - while the job may still run, its charge is not set below both the quote and the charge it had: such a
  //   figure counts nothing while the job runs (the quote does), but becomes the job's spend the moment a final
  //   read that carries no charge lands. The one exception is the settle (`pending` → the POST's answer), which
  //   carries the platform's first charge (the dedicated family, shoppable and gestures report it at submit).
  // The JSON copy every reader uses must say the same as the columns (else a low figure written there alone would
  // reach the columns with the next legitimate write). A separate trigger (not genplat_jobs_fixed): owned by the
  // table's owner, so the runtime role cannot drop it.
  [
    `CREATE FUNCTION genplat_jobs_spend() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.data IS DISTINCT FROM OLD.data AND (
            (NEW.data::jsonb ->> 'creditsCharged')::float8 IS DISTINCT FROM NEW.charged
            OR (NEW.data::jsonb ->> 'creditsRefunded')::float8 IS DISTINCT FROM NEW.refunded) THEN
         RAISE EXCEPTION 'genplat_jobs: the record''s charge and refund must equal the charged and refunded columns'
           USING ERRCODE = 'check_violation';
       END IF;
       IF (NEW.refunded IS DISTINCT FROM OLD.refunded OR NEW.charged IS DISTINCT FROM OLD.charged)
          AND COALESCE(NEW.refunded, 0) > COALESCE(NEW.charged, 0) THEN
         RAISE EXCEPTION 'genplat_jobs: a refund cannot exceed the charge (% refunded, % charged)', NEW.refunded, NEW.charged
           USING ERRCODE = 'check_violation';
       END IF;
       IF NEW.charged IS NOT NULL AND NEW.charged IS DISTINCT FROM OLD.charged
          AND NEW.charged < COALESCE(NEW.estimate_credits, 0)
          AND NEW.charged < COALESCE(OLD.charged, NEW.estimate_credits)
          AND OLD.outcome <> 'pending'
          AND ${ACTIVE_ROW('NEW')} THEN
         RAISE EXCEPTION 'genplat_jobs: the charge of a job that may still run cannot be lowered below its quote'
           USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER genplat_jobs_spend BEFORE UPDATE ON genplat_jobs
     FOR EACH ROW EXECUTE FUNCTION genplat_jobs_spend()`,
  ],
  // ---- end of issue 27 item 6
  // ---- issue 28 items 5-6, 8 (approvalstore helper): approvals held durably (approval-types.ts, same tables
  // as sqlite.ts). Self-contained: new tables, the audit's append-only function of step 3 reused. Decisions and
  // the approval audit are append-only; an approval row changes only while pending, and only its state: the
  // runtime role (UPDATE granted for that) cannot rewrite who asked, the request or the expiry.
  [
    ...approvalMigration(
      'genplat_',
      { serial: 'BIGSERIAL PRIMARY KEY', int: 'BIGINT', real: 'DOUBLE PRECISION' },
      (t) => [
        `CREATE TRIGGER ${t}_no_change BEFORE UPDATE OR DELETE ON ${t}
         FOR EACH ROW EXECUTE FUNCTION genplat_audit_append_only()`,
        `CREATE TRIGGER ${t}_no_truncate BEFORE TRUNCATE ON ${t}
         FOR EACH STATEMENT EXECUTE FUNCTION genplat_audit_append_only()`,
      ],
    ),
    `CREATE FUNCTION genplat_approvals_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.id IS DISTINCT FROM OLD.id OR NEW.requester IS DISTINCT FROM OLD.requester
         OR NEW.tool IS DISTINCT FROM OLD.tool OR NEW.created_at IS DISTINCT FROM OLD.created_at
         OR NEW.expires_at IS DISTINCT FROM OLD.expires_at OR NEW.campaign_id IS DISTINCT FROM OLD.campaign_id
         OR NEW.data IS DISTINCT FROM OLD.data OR OLD.state <> 'pending' THEN
         RAISE EXCEPTION 'approvals: only a pending approval changes, and only its state';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER genplat_approvals_fixed BEFORE UPDATE ON genplat_approvals
     FOR EACH ROW EXECUTE FUNCTION genplat_approvals_fixed()`,
  ],
  // ---- end of issue 28
  // ---- issue 29 item 1 (events helper): the event outbox (event-types.ts, same tables as sqlite.ts). Self-contained:
  // new tables; the delivery log is append-only (the audit's function of step 3).
  [
    ...eventMigration('genplat_', { serial: 'BIGSERIAL PRIMARY KEY', int: 'BIGINT' }, (t) => [
      `CREATE TRIGGER ${t}_no_change BEFORE UPDATE OR DELETE ON ${t}
       FOR EACH ROW EXECUTE FUNCTION genplat_audit_append_only()`,
      `CREATE TRIGGER ${t}_no_truncate BEFORE TRUNCATE ON ${t}
       FOR EACH STATEMENT EXECUTE FUNCTION genplat_audit_append_only()`,
    ]),
  ],
  // ---- end of issue 29
  // ---- issue 30 items 3-4 (budgets helper): teams' budgets (same tables as sqlite.ts step 10). Which teams a record
  // was admitted under, append-only (the audit's function of step 3), and the teams on the audit rows.
  [
    `CREATE TABLE genplat_job_teams (
      team TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      job_id TEXT NOT NULL,
      PRIMARY KEY (team, created_at, job_id)
    )`,
    `CREATE TRIGGER genplat_job_teams_no_change BEFORE UPDATE OR DELETE ON genplat_job_teams
     FOR EACH ROW EXECUTE FUNCTION genplat_audit_append_only()`,
    `CREATE TRIGGER genplat_job_teams_no_truncate BEFORE TRUNCATE ON genplat_job_teams
     FOR EACH STATEMENT EXECUTE FUNCTION genplat_audit_append_only()`,
    'ALTER TABLE genplat_audit ADD COLUMN teams TEXT',
    // The record's teams (its JSON copy, which later audit rows are written from) are fixed at admission too.
    `CREATE OR REPLACE FUNCTION genplat_jobs_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE k TEXT;
     BEGIN
       IF NEW.seq IS DISTINCT FROM OLD.seq OR NEW.id IS DISTINCT FROM OLD.id
          OR NEW.created_at IS DISTINCT FROM OLD.created_at OR NEW.fingerprint IS DISTINCT FROM OLD.fingerprint
          OR NEW.owner IS DISTINCT FROM OLD.owner OR NEW.estimate_credits IS DISTINCT FROM OLD.estimate_credits
          OR NEW.campaign_id IS DISTINCT FROM OLD.campaign_id OR NEW.campaign_fp IS DISTINCT FROM OLD.campaign_fp THEN
         RAISE EXCEPTION 'genplat_jobs: id, created_at, fingerprint, owner, campaign and estimate_credits are fixed at admission';
       END IF;
       IF NEW.data IS DISTINCT FROM OLD.data THEN
         FOREACH k IN ARRAY ARRAY['id', 'createdAt', 'fingerprint', 'owner', 'tool', 'estimate', 'campaign', 'teams'] LOOP
           IF (NEW.data::jsonb -> k) IS DISTINCT FROM (OLD.data::jsonb -> k) THEN
             RAISE EXCEPTION 'genplat_jobs: the record''s % is fixed at admission', k;
           END IF;
         END LOOP;
       END IF;
       IF NEW.outcome = 'rejected' AND OLD.outcome NOT IN ('queued', 'pending', 'rejected') THEN
         RAISE EXCEPTION 'genplat_jobs: only a queued or pending record can become rejected (its spend would stop counting)';
       END IF;
       RETURN NEW;
     END $$`,
  ],
  // ---- end of issue 30
];

/** Schema versions after which every row's columns are recomputed from its JSON (new columns filled). */
const REWRITE_ROWS_AFTER = new Set([2]);

/** Recomputes every row's columns from its JSON (a migration that added columns derived from the record). */
async function rewriteRows(c: pg.ClientBase): Promise<void> {
  const { rows } = await c.query<{ data: string }>('SELECT data FROM genplat_jobs');
  for (const row of rows) {
    const [id, ...rest] = toRow(fromData(row.data));
    await c.query(UPDATE, [...rest, id]);
  }
}

export async function readVersion(q: pg.Pool | pg.ClientBase): Promise<number> {
  const { rows } = await q.query<{ value: string }>(`SELECT value FROM genplat_meta WHERE key = 'schema_version'`);
  return rows[0] ? Number(rows[0].value) : 0;
}

/**
 * True when this session's role may run migrations: it owns the schema's tables (or is a member of the role
 * that does, or a superuser). On an empty database, whether it may create tables in the current schema.
 */
export async function canMigrate(q: pg.Pool | pg.ClientBase): Promise<boolean> {
  const { rows } = await q.query<{ ok: boolean }>(
    `SELECT CASE WHEN to_regclass('genplat_meta') IS NULL
              THEN has_schema_privilege(current_schema(), 'CREATE')
              ELSE pg_has_role((SELECT relowner FROM pg_class WHERE oid = to_regclass('genplat_meta')), 'USAGE')
            END AS ok`,
  );
  return rows[0]?.ok === true;
}

/**
 * Creates or migrates the schema when this role may; otherwise checks it is current. Also creates the consent
 * key, so a runtime role needs no write on genplat_meta. Returns the version found before.
 * @throws SchemaTooNewError (a newer genplat-mcp wrote it), SchemaMigrationNeededError (older, and this role
 *   may not migrate it).
 */
export async function migrateSchema(c: pg.ClientBase, where: string): Promise<number> {
  await c.query('SELECT pg_advisory_lock($1, $2)', [LOCK_CLASS, MIGRATE_LOCK]);
  try {
    const owner = await canMigrate(c);
    const exists = (await c.query(`SELECT to_regclass('genplat_meta') IS NOT NULL AS e`)).rows[0]?.e === true;
    if (!exists && !owner) throw new SchemaMigrationNeededError(where, 0, SCHEMA_VERSION);
    if (!exists) await c.query('CREATE TABLE IF NOT EXISTS genplat_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const found = await readVersion(c);
    if (found > SCHEMA_VERSION) throw new SchemaTooNewError(where, found, SCHEMA_VERSION);
    if (found < SCHEMA_VERSION && !owner) throw new SchemaMigrationNeededError(where, found, SCHEMA_VERSION);
    if (!owner) return found;
    if (found < SCHEMA_VERSION) {
      await c.query('BEGIN');
      try {
        for (let v = found; v < SCHEMA_VERSION; v++) for (const sql of MIGRATIONS[v] ?? []) await c.query(sql);
        // After the last step: the rewrite writes every column this code knows, some added by later steps.
        if (found > 0 && [...REWRITE_ROWS_AFTER].some((v) => v > found)) await rewriteRows(c);
        await c.query(
          `INSERT INTO genplat_meta (key, value) VALUES ('schema_version', $1)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [String(SCHEMA_VERSION)],
        );
        await c.query('COMMIT');
      } catch (err) {
        await c.query('ROLLBACK').catch(() => {});
        throw err;
      }
    }
    await ensureConsentKey(c);
    return found;
  } finally {
    await c.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, MIGRATE_LOCK]).catch(() => {});
  }
}

/** The key that signs confirmation tokens; the first writer wins (ON CONFLICT keeps it), every reader gets it. */
export async function ensureConsentKey(q: pg.Pool | pg.ClientBase): Promise<void> {
  await q.query(`INSERT INTO genplat_meta (key, value) VALUES ('consent_key', $1) ON CONFLICT (key) DO NOTHING`, [
    randomBytes(CONSENT_KEY_BYTES).toString('hex'),
  ]);
}
