/**
 * The fleet store: PostgreSQL through `pg`, for several server instances behind one platform account
 * (`GENPLAT_DATABASE_URL=postgres://…`). Same interface and tests as the SQLite store; see `types.ts` for
 * what is stored. Backup: `pg_dump --table 'genplat_*'`.
 *
 * - `admit` takes `pg_advisory_xact_lock(account)` as its first statement: admissions for one platform
 *   account are serialized across every instance, and the lock is released by COMMIT/ROLLBACK (a crashed
 *   instance's connection closing releases it too). Nothing is retried: a failed admit means no intent and
 *   no POST.
 * - The schema is created and migrated on open by the role that owns it (pg-schema.ts); a runtime role that
 *   does not own it only checks the version (docs/storage.md: least privilege for a fleet).
 * - `observe` commits with `synchronous_commit = off`: a poll result lost to a crash is read again.
 * - Timestamps come from the instance's clock (like the 0.1 ledger); keep the fleet's clocks in NTP sync.
 */
import pg from 'pg';
import { decodeHandle, type JobRef } from '../jobs/handle.js';
import { pgApprovals } from './approvals-pg.js';
import type { BlobStore } from './blobs.js';
import { pgBlobs } from './blobs-pg.js';
import { CommitUnknownError } from './commit-unknown.js';
import {
  CLIENT_QUERY_SLACK_MS,
  type DbTimeouts,
  DEFAULT_DB_TIMEOUTS,
  isDbTimeout,
  StoreBusyError,
} from './db-timeouts.js';
import {
  admissionEvents,
  approvalDecided,
  approvalRequested,
  campaignEvents,
  endsCampaignItem,
  jobEvents,
} from './event-derive.js';
import type { NewEvent } from './event-types.js';
import { pgEmit, pgEvents, pgLockSubject } from './events-pg.js';
import { storeRole } from './pg-roles.js';
import { ensureConsentKey, INSERT, LOCK_CLASS, MIGRATE_LOCK, migrateSchema, readVersion, UPDATE } from './pg-schema.js';
import {
  AUDIT_COLUMNS,
  auditAppendSql,
  auditChanged,
  auditRow,
  auditSelectSql,
  bundleItemsSql,
  type FactName,
  factPlan,
  factSql,
  factsFrom,
  fromAuditRow,
  fromData,
  itemFactPlan,
  jobKeyColumn,
  mergePatch,
  NEWEST_FIRST,
  NONCE_GRACE_MS,
  newRecord,
  nonceHash,
  pgPlaceholders,
  queuedBundlesSql,
  teamRows,
  toRow,
  withItemFacts,
} from './record.js';
import type {
  AdmissionFacts,
  AdmissionRule,
  AdmitResult,
  AdmitRules,
  AuditEvent,
  AuditFilter,
  BundleAdmissionRule,
  BundleAdmitResult,
  BundleItem,
  ItemWait,
  JobFilter,
  JobPatch,
  JobRecord,
  NewJobRecord,
  Observation,
  Settlement,
  Store,
  StoreRole,
} from './types.js';
import { waitsAs } from './types.js';

export interface PostgresStoreOptions {
  now?: () => Date;
  /** Names the platform account whose admissions are serialized; one database can serve several. */
  account?: string;
  /** Test-only: runs inside the admit transaction after the intent's insert, before COMMIT; may never resolve. */
  onAdmitWrite?: (() => void | Promise<void>) | undefined;
  /** Connections per instance. 5: admissions are serialized anyway; the rest is short reads and polls. */
  poolSize?: number;
  /** Bounded waits (db-timeouts.ts); each missing field takes its default. */
  timeouts?: Partial<DbTimeouts> | undefined;
}

/** Pooled clients that already carry a no-op 'error' listener (added once per client). */
const GUARDED = new WeakSet<pg.PoolClient>();

/** A pool of 5 may hold 5 dead connections after a restart: one more try than that reaches a fresh one. */
const STALE_CONNECTION_RETRIES = 5;

/** The connection died under the statement (restart, reset, partition), as opposed to the statement failing. */
function isConnectionLoss(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  // 57P01-57P03: admin shutdown, crash shutdown, cannot connect now (PostgreSQL restarting).
  if (typeof e?.code === 'string' && /^(57P0[123]|08\d{3}|ECONNRESET|ECONNREFUSED|EPIPE)$/.test(e.code)) return true;
  return typeof e?.message === 'string' && /Connection terminated|connection .*closed|ECONNRESET/i.test(e.message);
}

/** Runs a read or an idempotent statement again when a stale pooled connection died under it. */
async function retryOnConnectionLoss<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (!isConnectionLoss(err) || attempt >= STALE_CONNECTION_RETRIES) throw err;
    }
  }
}

const PRUNE_EVERY_MS = 60 * 60 * 1000;
const ORDER = NEWEST_FIRST;
const $ = (n: number) => Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ');
const FACTS = Object.fromEntries(
  Object.entries(factSql('genplat_jobs', 'GREATEST')).map(([k, sql]) => [k, pgPlaceholders(sql)]),
) as Record<FactName, string>;
const SPEND = FACTS.spentToday;
const OWNER_SPEND = FACTS.spentByOwner;
const AUDIT = `INSERT INTO genplat_audit (${AUDIT_COLUMNS.join(', ')}) VALUES (${$(AUDIT_COLUMNS.length)})`;
const AUDIT_APPEND = pgPlaceholders(auditAppendSql('genplat_audit'));
const TEAM_INSERT = 'INSERT INTO genplat_job_teams (team, created_at, job_id) VALUES ($1, $2, $3)';

/** A 32-bit lock key from the account name (stable across instances and versions). */
function accountKey(account: string): number {
  let h = 0x811c9dc5;
  for (const ch of Buffer.from(account)) h = Math.imul(h ^ ch, 0x01000193);
  // 0 is the migration lock's key.
  return (h | 0) === MIGRATE_LOCK ? 1 : h | 0;
}

class PostgresStore implements Store {
  readonly description: string;
  private closed = false;
  private lastPrune = 0;
  private readonly lockKey: number;

  constructor(
    private readonly pool: pg.Pool,
    where: string,
    private readonly now: () => Date,
    account: string,
    private readonly onAdmitWrite?: (() => void | Promise<void>) | undefined,
    private readonly lockMs: number = DEFAULT_DB_TIMEOUTS.lockMs,
  ) {
    this.description = `PostgreSQL ${where}`;
    this.lockKey = accountKey(account);
  }

  /**
   * A connection from the pool that answers. After a PostgreSQL restart or a network cut, idle pooled
   * connections are dead and the first statement on each fails; a stale one is dropped and another taken (a
   * new connection once the pool is drained), so the store heals without a server restart. Only this first
   * statement is retried: nothing has happened on the connection yet.
   */
  private async connected(first: string): Promise<pg.PoolClient> {
    for (let attempt = 0; ; attempt++) {
      let c: pg.PoolClient | undefined;
      try {
        c = await this.pool.connect();
        // pg emits 'error' on a checked-out client whose connection dies (restart, cut, a session ended by
        // the server); unheard, that event crashes the process. The failing statement rejects on its own.
        if (!GUARDED.has(c)) {
          GUARDED.add(c);
          c.on('error', () => {});
        }
        await c.query(first);
        return c;
      } catch (err) {
        c?.release(true);
        if (!isConnectionLoss(err) || attempt >= STALE_CONNECTION_RETRIES) throw err;
      }
    }
  }

  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>, durable = true): Promise<T> {
    if (this.closed) throw new Error('The job store is closed.');
    const c = await this.connected('BEGIN');
    // The server may end this session mid-transaction (idle_in_transaction_session_timeout after a freeze, a
    // restart): pg then emits 'error' on the checked-out client, which would crash the process unheard. The
    // failing query rejects on its own; this only keeps the event from being fatal.
    let broken = false;
    const onError = () => {
      broken = true;
    };
    c.on('error', onError);
    try {
      if (!durable) await c.query('SET LOCAL synchronous_commit = off');
      const out = await fn(c);
      try {
        await c.query('COMMIT');
      } catch (err) {
        // Sent, unanswered (a cut, a timeout): the server may have committed. Before COMMIT, a failure is a rollback.
        broken = true;
        throw new CommitUnknownError({ cause: err });
      }
      return out;
    } catch (err) {
      if (err instanceof CommitUnknownError) throw err;
      await c.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw err;
    } finally {
      c.off('error', onError);
      // A client whose session died is destroyed, not returned to the pool.
      c.release(broken ? true : undefined);
    }
  }

  /** One statement outside a transaction (reads, idempotent writes): retried on a stale pooled connection. */
  private async query<R extends pg.QueryResultRow>(sql: string, args: unknown[] = []): Promise<R[]> {
    if (this.closed) throw new Error('The job store is closed.');
    return retryOnConnectionLoss(async () => (await this.pool.query<R>(sql, args)).rows);
  }

  /** The facts `rules` names, read on `c` (inside `admit`'s transaction) or on the pool (plainly). */
  private async facts(rules: AdmitRules, c: pg.Pool | pg.PoolClient): Promise<AdmissionFacts> {
    const rows = [];
    for (const { fact, args, budget } of factPlan(rules)) {
      const { rows: found } = await c.query<Record<string, unknown>>(FACTS[fact], args);
      rows.push({ fact, budget, row: found[0] });
    }
    return factsFrom(this.now(), rows);
  }

  async readAdmissionFacts(rules: AdmitRules): Promise<AdmissionFacts> {
    if (this.closed) throw new Error('The job store is closed.');
    return retryOnConnectionLoss(() => this.facts(rules, this.pool));
  }

  async admit(intent: NewJobRecord, rules: AdmitRules, rule: AdmissionRule): Promise<AdmitResult> {
    const credits = intent.estimate?.credits ?? 0;
    // The one item is the bundle: its facts are the rules' own, so no per-item facts are read.
    const one = [{ ...intent, outcome: 'pending' as const }];
    const res = await this.admitItems(one, rules, (_, f, r) => rule(credits, f, r), false);
    return res.admitted ? { admitted: true, record: res.records[0]! } : res;
  }

  admitBundle(items: BundleItem[], rules: AdmitRules, rule: BundleAdmissionRule): Promise<BundleAdmitResult> {
    return this.admitItems(items, rules, rule, true);
  }

  private async admitItems(
    items: BundleItem[],
    rules: AdmitRules,
    rule: BundleAdmissionRule,
    itemFacts: boolean,
  ): Promise<BundleAdmitResult> {
    await this.pruneNow();
    return this.tx(async (c): Promise<BundleAdmitResult> => {
      try {
        await c.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS, this.lockKey]);
      } catch (err) {
        // Waited `lockMs` for another instance (frozen, partitioned or slow): refuse unsent, retryable.
        if (isDbTimeout(err)) throw new StoreBusyError(this.lockMs, { cause: err });
        throw err;
      }
      // Every instance's admissions for this account (single calls and campaigns alike) are serialized: the
      // spend and records read below cannot change before the inserts commit.
      const base = await this.facts(rules, c);
      const found = [];
      for (const query of itemFacts ? itemFactPlan(items, rules, base) : []) {
        found.push({ query, row: (await c.query<{ data: string }>(FACTS[query.fact], query.args)).rows[0] });
      }
      const facts = withItemFacts(base, rules, found);
      const refusal = rule(
        items.map((i) => i.estimate?.credits ?? Number.NaN),
        facts,
        rules,
      );
      if (refusal) return { admitted: false, ...refusal };
      if (rules.nonce) {
        const { rowCount } = await c.query(
          'INSERT INTO genplat_nonces (hash, expires_at) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING',
          [nonceHash(rules.nonce.value), rules.nonce.expiresAt.getTime()],
        );
        if (rowCount === 0) return { admitted: false, reason: 'token_used' };
      }
      const records = items.map((i) => newRecord(i, this.now(), rules.teams));
      for (const record of records) {
        await c.query(INSERT, toRow(record));
        for (const row of teamRows(record)) await c.query(TEAM_INSERT, row);
        await c.query(AUDIT, auditRow(record, 'admit', this.now()));
      }
      const alerts = await pgEmit(c, admissionEvents(items, facts, rules, this.now().getTime()));
      // Test-only: may not return (a frozen instance, test/fleet/frozen-instance.test.ts).
      await this.onAdmitWrite?.();
      return { admitted: true, records, alerts };
    });
  }

  claimItem(id: string, patch: JobPatch, from: ItemWait = 'queued'): Promise<JobRecord | undefined> {
    return this.tx(async (c) => {
      // The row lock orders two claimers: the second reads the first one's outcome and gets nothing.
      const { rows } = await c.query<{ data: string }>('SELECT data FROM genplat_jobs WHERE id = $1 FOR UPDATE', [id]);
      if (!rows[0]) return undefined;
      const before = fromData(rows[0].data);
      if (!waitsAs(before, from)) return undefined;
      const merged = mergePatch(before, patch, this.now());
      const [, ...rest] = toRow(merged);
      await c.query(UPDATE, [...rest, id]);
      if (auditChanged(before, merged)) await c.query(AUDIT_APPEND, [...auditRow(merged, 'settle', this.now()), id]);
      await this.emitJobEvents(c, before, merged);
      return merged;
    });
  }

  /** Inside a write transaction, after the record's row lock: the events of `before` → `after`. */
  private async emitJobEvents(c: pg.PoolClient, before: JobRecord, after: JobRecord): Promise<void> {
    const at = this.now().getTime();
    const events: NewEvent[] = jobEvents(before, after, at);
    if (endsCampaignItem(before, after) && after.campaign) {
      // The campaign's transitions one at a time across the fleet: counts grow by one and commit in order.
      await pgLockSubject(c, `campaign:${after.campaign.id}`);
      const { rows } = await c.query<{ data: string }>(pgPlaceholders(bundleItemsSql('genplat_jobs')), [
        after.campaign.id,
      ]);
      events.push(
        ...campaignEvents(
          after,
          rows.map((r) => fromData(r.data)),
          at,
        ),
      );
    }
    await pgEmit(c, events);
  }

  async bundleItems(campaignId: string): Promise<JobRecord[]> {
    const rows = await this.query<{ data: string }>(pgPlaceholders(bundleItemsSql('genplat_jobs')), [campaignId]);
    return rows.map((r) => fromData(r.data));
  }

  async queuedBundles(): Promise<string[]> {
    const rows = await this.query<{ campaign_id: string }>(queuedBundlesSql('genplat_jobs'));
    return rows.map((r) => r.campaign_id);
  }

  async track(intent: NewJobRecord): Promise<JobRecord> {
    const record = newRecord(intent, this.now());
    await this.query(INSERT, toRow(record));
    return record;
  }

  private patch(id: string, patch: JobPatch, event: 'settle' | 'observe'): Promise<JobRecord> {
    return this.tx(async (c) => {
      const { rows } = await c.query<{ data: string }>('SELECT data FROM genplat_jobs WHERE id = $1 FOR UPDATE', [id]);
      if (!rows[0]) throw new Error(`The job store has no record ${id}.`);
      const before = fromData(rows[0].data);
      const merged = mergePatch(before, patch, this.now());
      const [, ...rest] = toRow(merged);
      await c.query(UPDATE, [...rest, id]);
      // Same transaction (and the row lock above orders two writers of one record): see sqlite.ts `patch`.
      if (auditChanged(before, merged)) await c.query(AUDIT_APPEND, [...auditRow(merged, event, this.now()), id]);
      await this.emitJobEvents(c, before, merged);
      return merged;
    }, event === 'settle');
  }

  settle(id: string, result: Settlement): Promise<JobRecord> {
    return this.patch(id, result, 'settle');
  }

  observe(id: string, patch: Observation): Promise<JobRecord> {
    return this.patch(id, patch, 'observe');
  }

  async get(idOrHandle: string): Promise<JobRecord | undefined> {
    const byId = (id: string) => this.query<{ data: string }>('SELECT data FROM genplat_jobs WHERE id = $1', [id]);
    let rows = await byId(idOrHandle);
    // A `submission:<id>` handle keeps working after the record got its platform handle.
    const ref = rows[0] ? undefined : decodeHandle(idOrHandle);
    if (!rows[0] && ref?.kind === 'submission') rows = await byId(ref.id);
    if (!rows[0]) {
      rows = await this.query(`SELECT data FROM genplat_jobs WHERE handle = $1 ${ORDER} LIMIT 1`, [idOrHandle.trim()]);
    }
    return rows[0] ? fromData(rows[0].data) : undefined;
  }

  async getByRef(ref: JobRef): Promise<JobRecord | undefined> {
    const rows =
      ref.kind === 'submission'
        ? await this.query<{ data: string }>('SELECT data FROM genplat_jobs WHERE id = $1', [ref.id])
        : await this.query<{ data: string }>(`SELECT data FROM genplat_jobs WHERE job_key = $1 ${ORDER} LIMIT 1`, [
            jobKeyColumn(ref),
          ]);
    return rows[0] ? fromData(rows[0].data) : undefined;
  }

  async list(filter: JobFilter = {}): Promise<JobRecord[]> {
    if (filter.status?.length === 0) return [];
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.owner !== undefined) {
      args.push(filter.owner);
      where.push(`owner = $${args.length}`);
    }
    if (filter.since) {
      args.push(filter.since.getTime());
      where.push(`created_at >= $${args.length}`);
    }
    if (filter.status) {
      args.push(filter.status);
      where.push(`status = ANY($${args.length}::text[])`);
    }
    const sql = `SELECT data FROM genplat_jobs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ${ORDER}${
      filter.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(filter.limit))}` : ''
    }`;
    return (await this.query<{ data: string }>(sql, args)).map((r) => fromData(r.data));
  }

  async spendSince(since: Date, owner?: string): Promise<number> {
    const rows =
      owner === undefined
        ? await this.query<{ spent: number }>(SPEND, [since.getTime()])
        : await this.query<{ spent: number }>(OWNER_SPEND, [since.getTime(), owner]);
    return Number(rows[0]?.spent ?? 0);
  }

  async auditEvents(filter: AuditFilter = {}): Promise<AuditEvent[]> {
    const sql = auditSelectSql('genplat_audit', {
      since: filter.since !== undefined,
      owner: filter.owner !== undefined,
    });
    const args: unknown[] = [];
    if (filter.since) args.push(filter.since.getTime());
    if (filter.owner !== undefined) args.push(filter.owner);
    return (await this.query<Record<string, unknown>>(pgPlaceholders(sql), args)).map(fromAuditRow);
  }

  async consentKey(): Promise<Buffer> {
    const read = () => this.query<{ value: string }>(`SELECT value FROM genplat_meta WHERE key = 'consent_key'`);
    // The schema's owner writes it when it migrates (pg-schema.ts), so a runtime role, which may only read
    // genplat_meta, finds it. A store whose key is somehow missing gets one here, if this role may write.
    let rows = await read();
    if (!rows[0]) {
      if (this.closed) throw new Error('The job store is closed.');
      await ensureConsentKey(this.pool);
      rows = await read();
    }
    return Buffer.from(rows[0]?.value ?? '', 'hex');
  }

  async tryLease(jobKey: string, ms: number, holder: string): Promise<boolean> {
    const now = this.now().getTime();
    const rows = await this.query(
      `INSERT INTO genplat_leases (job_key, holder, until_ms) VALUES ($1, $2, $3)
       ON CONFLICT (job_key) DO UPDATE SET holder = excluded.holder, until_ms = excluded.until_ms
       WHERE genplat_leases.until_ms <= $4 RETURNING 1`,
      [jobKey, holder, now + ms, now],
    );
    return rows.length === 1;
  }

  async schemaVersion(): Promise<number> {
    return readVersion(this.pool);
  }

  private readonly approvalMethods = pgApprovals(
    (fn) => this.tx(fn),
    (sql, args) => this.query(sql, args),
    (c) => ({
      requested: async (a) => {
        await pgEmit(c, [approvalRequested(a)]);
      },
      decided: async (a, decision, at, by) => {
        await pgEmit(c, [approvalDecided(a, decision, at, by)]);
      },
    }),
  );
  private readonly eventMethods = pgEvents(
    (fn) => this.tx(fn),
    (sql, args) => this.query(sql, args),
  );
  events: Store['events'] = (after, limit) => this.eventMethods.events(after, limit);
  fanOutEvents: Store['fanOutEvents'] = (eps, since, after, now) =>
    this.eventMethods.fanOutEvents(eps, since, after, now);
  leaseDeliveries: Store['leaseDeliveries'] = (ep, holder, now, ms, limit) =>
    this.eventMethods.leaseDeliveries(ep, holder, now, ms, limit);
  recordDelivery: Store['recordDelivery'] = (d, holder, o) => this.eventMethods.recordDelivery(d, holder, o);
  deliveryLog: Store['deliveryLog'] = (limit) => this.eventMethods.deliveryLog(limit);
  deliverySummary: Store['deliverySummary'] = () => this.eventMethods.deliverySummary();
  createApproval: Store['createApproval'] = (r) => this.approvalMethods.createApproval(r);
  approval: Store['approval'] = (id) => this.approvalMethods.approval(id);
  decideApproval: Store['decideApproval'] = (id, d, judge) => this.approvalMethods.decideApproval(id, d, judge);
  approvalsAwaiting: Store['approvalsAwaiting'] = (who, now) => this.approvalMethods.approvalsAwaiting(who, now);
  expireApprovals: Store['expireApprovals'] = (now) => this.approvalMethods.expireApprovals(now);
  approvalAudit: Store['approvalAudit'] = (f) => this.approvalMethods.approvalAudit(f);

  private blobStore: BlobStore | undefined;
  blobs(): BlobStore {
    this.blobStore ??= pgBlobs(this.pool, retryOnConnectionLoss);
    return this.blobStore;
  }

  role(): Promise<StoreRole> {
    return storeRole(this.pool);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private async pruneNow(): Promise<void> {
    const now = this.now().getTime();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await this.query('DELETE FROM genplat_nonces WHERE expires_at < $1', [now - NONCE_GRACE_MS]);
    await this.query('DELETE FROM genplat_leases WHERE until_ms < $1', [now]);
  }
}

/** The URL without its password, for messages. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    // The query can carry credentials too (`?password=`, `sslpassword`, `sslkey`…): never shown.
    u.search = '';
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/**
 * Connects, then creates or migrates the schema when this role owns it (pg-schema.ts), else checks it is current.
 * @throws SchemaTooNewError when a newer genplat-mcp wrote it; SchemaMigrationNeededError when it is older and
 *   this role may not migrate it; connection errors.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const t = { ...DEFAULT_DB_TIMEOUTS, ...options.timeouts };
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 5,
    connectionTimeoutMillis: t.connectMs,
    // Server-side limits, set on every session this pool opens (db-timeouts.ts says why each).
    statement_timeout: t.statementMs,
    lock_timeout: t.lockMs,
    idle_in_transaction_session_timeout: t.idleInTransactionMs,
    query_timeout: t.statementMs + CLIENT_QUERY_SLACK_MS,
    // A dead peer behind a partition is noticed by TCP keepalive instead of never.
    keepAlive: true,
  });
  // An idle connection's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const where = describeUrl(url);
  try {
    const c = await pool.connect();
    try {
      await migrateSchema(c, where);
    } finally {
      c.release();
    }
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  return new PostgresStore(
    pool,
    where,
    options.now ?? (() => new Date()),
    options.account ?? 'default',
    options.onAdmitWrite,
    t.lockMs,
  );
}
