/**
 * Least privilege for the shared store (docs/storage.md): what the server's runtime role is granted, and which
 * kind of role a session has. The runtime role does not own the tables, so it cannot disable their triggers,
 * ALTER, DROP or TRUNCATE them; its grants below leave the audit trail insert-only and the job rows updatable
 * only through the `genplat_jobs_fixed` trigger (pg-schema.ts migration 4).
 */
import pg from 'pg';
import type { StoreRole } from './types.js';

export type { StoreRole };

/**
 * Exactly what the server does with each table, and nothing more:
 * - meta: reads the schema version and the consent key (the migration writes both);
 * - jobs: admits (INSERT), settles and observes (UPDATE, guarded by the trigger); never deletes;
 * - audit: appends and exports; never UPDATE/DELETE/TRUNCATE (its append-only triggers are the second wall);
 * - nonces: single-use confirmations, pruned once expired; leases: the shared poller's short leases;
 * - blobs + blob_chunks: uploads and self-served staged files (src/store/blobs.ts), deleted once used or expired;
 * - approvals (issue 28): created and decided (UPDATE of a pending row's state only, by trigger); their approvers,
 *   decisions and audit are insert-only;
 * - events (issue 29): the outbox is insert-only; deliveries are created and leased/updated; the delivery log is
 *   insert-only;
 * - job_teams (issue 30): the teams a record was admitted under, insert-only.
 */
export const RUNTIME_PRIVILEGES = {
  genplat_meta: ['SELECT'],
  genplat_jobs: ['SELECT', 'INSERT', 'UPDATE'],
  genplat_audit: ['SELECT', 'INSERT'],
  genplat_nonces: ['SELECT', 'INSERT', 'DELETE'],
  genplat_leases: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  genplat_blobs: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  genplat_blob_chunks: ['SELECT', 'INSERT', 'DELETE'],
  genplat_approvals: ['SELECT', 'INSERT', 'UPDATE'],
  genplat_approval_approvers: ['SELECT', 'INSERT'],
  genplat_approval_decisions: ['SELECT', 'INSERT'],
  genplat_approval_audit: ['SELECT', 'INSERT'],
  genplat_events: ['SELECT', 'INSERT'],
  genplat_event_deliveries: ['SELECT', 'INSERT', 'UPDATE'],
  genplat_event_attempts: ['SELECT', 'INSERT'],
  genplat_job_teams: ['SELECT', 'INSERT'],
} as const satisfies Record<string, readonly string[]>;

/** BIGSERIAL `seq` columns: INSERT draws from them (USAGE = nextval; setval would need UPDATE, not granted). */
const SEQUENCES = [
  'genplat_jobs_seq_seq',
  'genplat_audit_seq_seq',
  'genplat_approval_audit_seq_seq',
  'genplat_events_seq_seq',
  'genplat_event_attempts_seq_seq',
] as const;

/** The table privileges a role can hold; any the runtime role has beyond its list is reported by doctor. */
const TABLE_PRIVILEGES = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'TRIGGER', 'REFERENCES'] as const;

/** The GRANT statements for `role` on the tables in `schema` (REVOKE first, so a re-run also takes away). */
export function runtimeGrants(role: string, schema: string): string[] {
  const r = pg.escapeIdentifier(role);
  const q = (name: string) => `${pg.escapeIdentifier(schema)}.${name}`;
  const tables = Object.keys(RUNTIME_PRIVILEGES).map(q).join(', ');
  const sequences = SEQUENCES.map(q).join(', ');
  return [
    `GRANT USAGE ON SCHEMA ${pg.escapeIdentifier(schema)} TO ${r}`,
    `REVOKE ALL ON ${tables} FROM ${r}`,
    `REVOKE ALL ON SEQUENCE ${sequences} FROM ${r}`,
    ...Object.entries(RUNTIME_PRIVILEGES).map(([t, privs]) => `GRANT ${privs.join(', ')} ON ${q(t)} TO ${r}`),
    `GRANT USAGE ON SEQUENCE ${sequences} TO ${r}`,
  ];
}

/** Which kind of role this session has, from the catalog (table owner and has_*_privilege). */
export async function storeRole(q: pg.Pool | pg.ClientBase): Promise<StoreRole> {
  const { rows } = await q.query<{ user: string; superuser: boolean; owns: boolean }>(
    `SELECT current_user AS user, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser,
            pg_has_role((SELECT relowner FROM pg_class WHERE oid = to_regclass('genplat_audit')), 'USAGE') AS owns`,
  );
  const me = rows[0];
  if (!me) throw new Error('no answer to the role query');
  if (me.superuser || me.owns) return { kind: 'owner', user: me.user, superuser: me.superuser };
  const tables = Object.keys(RUNTIME_PRIVILEGES);
  const privs = await q.query<{ t: string; p: string; has: boolean }>(
    `SELECT t, p, has_table_privilege(t, p) AS has FROM unnest($1::text[]) t CROSS JOIN unnest($2::text[]) p`,
    [tables, TABLE_PRIVILEGES],
  );
  const seqs = await q.query<{ s: string; has: boolean }>(
    `SELECT s, has_sequence_privilege(s, 'USAGE') AS has FROM unnest($1::text[]) s`,
    [SEQUENCES],
  );
  const missing: string[] = [];
  const extra: string[] = [];
  for (const { t, p, has } of privs.rows) {
    const needed = (RUNTIME_PRIVILEGES[t as keyof typeof RUNTIME_PRIVILEGES] as readonly string[]).includes(p);
    if (needed && !has) missing.push(`${t}: ${p}`);
    if (!needed && has) extra.push(`${t}: ${p}`);
  }
  for (const { s, has } of seqs.rows) if (!has) missing.push(`${s}: USAGE`);
  if (missing.length) return { kind: 'limited', user: me.user, missing };
  if (extra.length) return { kind: 'broad', user: me.user, extra };
  return { kind: 'runtime', user: me.user };
}

/**
 * Grants `role` the runtime privileges on this session's current schema, in one transaction; returns the
 * statements it ran. Run by the migration role after `migrateSchema`.
 * @throws Error when `role` does not exist, or is itself the owner or a superuser (no least privilege then).
 */
export async function grantRuntimeRole(c: pg.ClientBase, role: string): Promise<string[]> {
  const { rows } = await c.query<{ exists: boolean; owner: boolean; superuser: boolean; schema: string }>(
    `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AS exists,
            COALESCE((SELECT rolsuper FROM pg_roles WHERE rolname = $1), false) AS superuser,
            COALESCE((SELECT pg_has_role($1, relowner, 'USAGE') FROM pg_class WHERE oid = to_regclass('genplat_audit')
                      AND EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)), false) AS owner,
            current_schema() AS schema`,
    [role],
  );
  const r = rows[0];
  if (!r?.exists) {
    throw new Error(
      `role "${role}" does not exist: create it first (CREATE ROLE ${pg.escapeIdentifier(role)} LOGIN PASSWORD '…'), then run this again.`,
    );
  }
  if (r.superuser || r.owner) {
    throw new Error(
      `role "${role}" ${r.superuser ? 'is a superuser' : 'owns the genplat_* tables (or is a member of their owner)'}: it can alter the audit whatever is granted. The runtime role must be another, ordinary role.`,
    );
  }
  const statements = runtimeGrants(role, r.schema);
  await c.query('BEGIN');
  try {
    for (const sql of statements) await c.query(sql);
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  }
  return statements;
}
