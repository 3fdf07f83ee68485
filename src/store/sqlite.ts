/**
 * The default store: `<stateDir>/genplat.db` through `node:sqlite` (no native addon, so npx users and the
 * Claude Desktop bundle need no compiler). See `types.ts` for what is stored and how to back it up.
 *
 * - WAL: readers never wait for the writer; `synchronous=FULL` makes each commit durable (the intent is on
 *   disk before the POST), except `observe`, which commits with `NORMAL` (a lost poll result is re-read).
 * - `admit` runs in `BEGIN IMMEDIATE`: the write lock is taken before the first read, so two processes on one
 *   state dir cannot both read the spend and both insert. SQLite, not our code, serializes them.
 * - The API is synchronous: a transaction is a few statements on local disk (well under a millisecond, plus
 *   an fsync), and while another process holds the lock this one waits in SQLite's busy handler.
 */

import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { decodeHandle, type JobRef } from '../jobs/handle.js';
import { createLogger, type Logger } from '../log.js';
import type { ApprovalStoreMethods } from './approval-types.js';
import { approvalMigration } from './approvals-sql.js';
import { sqliteApprovals } from './approvals-sqlite.js';
import type { BlobStore } from './blobs.js';
import { sqliteBlobs } from './blobs-sqlite.js';
import { CommitUnknownError } from './commit-unknown.js';
import {
  admissionEvents,
  approvalDecided,
  approvalRequested,
  campaignEvents,
  endsCampaignItem,
  jobEvents,
} from './event-derive.js';
import type { EventStoreMethods, NewEvent } from './event-types.js';
import { eventMigration } from './events-sql.js';
import { sqliteEmit, sqliteEvents } from './events-sqlite.js';
import { type LedgerImport, readLedgerForImport, setLedgerAside } from './import-ledger.js';
import {
  ACTIVE_ROW,
  AUDIT_COLUMNS,
  auditAppendSql,
  auditChanged,
  auditRow,
  auditSelectSql,
  bundleItemsSql,
  COLUMNS,
  CONSENT_KEY_BYTES,
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
  queuedBundlesSql,
  teamRows,
  toRow,
  withItemFacts,
} from './record.js';
import { loadSqlite } from './sqlite-module.js';
import { storeStateError } from './state-errors.js';
import {
  type AdmissionFacts,
  type AdmissionRule,
  type AdmitResult,
  type AdmitRules,
  type AuditEvent,
  type AuditFilter,
  type BundleAdmissionRule,
  type BundleAdmitResult,
  type BundleItem,
  type ItemWait,
  type JobFilter,
  type JobPatch,
  type JobRecord,
  type NewJobRecord,
  type Observation,
  SCHEMA_VERSION,
  SchemaTooNewError,
  type Settlement,
  type Store,
  waitsAs,
} from './types.js';

export const DB_FILE = 'genplat.db';

export interface SqliteStoreOptions {
  now?: () => Date;
  log?: Pick<Logger, 'warn'>;
  /**
   * How long a transaction waits for another process's. 10 s: a transaction holds the lock for about a
   * millisecond plus one fsync, so only a stalled disk or a stopped process (SIGSTOP) makes anyone wait this long.
   */
  busyTimeoutMs?: number;
  /** Test-only: runs inside the admit transaction after the intent's insert, before COMMIT. */
  onAdmitWrite?: (() => void) | undefined;
  /** Default true: import a 0.1 `ledger.jsonl` when this open creates the store. */
  importLedger?: boolean;
}

/** Index i = the statements that take schema i to i+1. Append only; never edit a shipped migration. */
const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE jobs (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      owner TEXT,
      fingerprint TEXT NOT NULL,
      outcome TEXT NOT NULL,
      status TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      handle TEXT NOT NULL,
      estimate_credits REAL,
      charged REAL,
      refunded REAL,
      data TEXT NOT NULL
    )`,
    'CREATE INDEX jobs_created ON jobs (created_at)',
    'CREATE INDEX jobs_fingerprint ON jobs (fingerprint, created_at)',
    'CREATE INDEX jobs_handle ON jobs (handle)',
    'CREATE INDEX jobs_owner ON jobs (owner, created_at)',
    'CREATE TABLE nonces (hash TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID',
    'CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID',
    'CREATE TABLE leases (job_key TEXT PRIMARY KEY, holder TEXT NOT NULL, until_ms INTEGER NOT NULL) WITHOUT ROWID',
  ],
  // 2: the runtime's lookups as columns (issue 10 wiring): job key (getByRef), exclusive key (upscale's one
  // attempt per video), the platform's own estimate (counted like a charge, reconcile.ts `countedCredits`).
  [
    'ALTER TABLE jobs ADD COLUMN platform_estimate REAL',
    'ALTER TABLE jobs ADD COLUMN job_key TEXT',
    'ALTER TABLE jobs ADD COLUMN exclusive_key TEXT',
    'CREATE INDEX jobs_job_key ON jobs (job_key, created_at)',
    'CREATE INDEX jobs_exclusive ON jobs (exclusive_key, created_at)',
  ],
  // 3: the audit trail (issue 14), append-only: the triggers refuse every UPDATE and DELETE. Records admitted
  // before this version have no rows (nothing is made up after the fact).
  [
    `CREATE TABLE audit (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      at INTEGER NOT NULL,
      event TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      owner TEXT,
      tool TEXT NOT NULL,
      kind TEXT,
      quote_credits REAL,
      consent TEXT,
      request_id TEXT,
      outcome TEXT NOT NULL,
      status TEXT NOT NULL,
      charged REAL,
      refunded REAL,
      platform_estimate REAL,
      handle TEXT NOT NULL
    )`,
    'CREATE INDEX audit_ledger ON audit (ledger_id, event)',
    'CREATE INDEX audit_admit ON audit (event, at)',
    `CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END`,
    `CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END`,
  ],
  // 4: a job's identity and quote are fixed at admission (same rule as postgres migration 4, pg-schema.ts): a
  // bug cannot move a job out of today, to another caller, out of the duplicate guard or lower its quote. On
  // SQLite whoever can write the file can drop the trigger; it guards against mistakes, not a hostile process.
  [
    `CREATE TRIGGER jobs_fixed BEFORE UPDATE ON jobs
     WHEN NEW.seq IS NOT OLD.seq OR NEW.id IS NOT OLD.id OR NEW.created_at IS NOT OLD.created_at
       OR NEW.fingerprint IS NOT OLD.fingerprint OR NEW.owner IS NOT OLD.owner
       OR NEW.estimate_credits IS NOT OLD.estimate_credits
       OR json_extract(NEW.data, '$.id') IS NOT json_extract(OLD.data, '$.id')
       OR json_extract(NEW.data, '$.createdAt') IS NOT json_extract(OLD.data, '$.createdAt')
       OR json_extract(NEW.data, '$.fingerprint') IS NOT json_extract(OLD.data, '$.fingerprint')
       OR json_extract(NEW.data, '$.owner') IS NOT json_extract(OLD.data, '$.owner')
       OR json_extract(NEW.data, '$.tool') IS NOT json_extract(OLD.data, '$.tool')
       OR json_extract(NEW.data, '$.estimate') IS NOT json_extract(OLD.data, '$.estimate')
       OR (NEW.outcome = 'rejected' AND OLD.outcome NOT IN ('pending', 'rejected'))
     BEGIN SELECT RAISE(ABORT, 'jobs: id, created_at, fingerprint, owner, tool and the quote are fixed at admission; only a pending record can become rejected'); END`,
  ],
  // 5: campaigns (issue 21). Items are job records with their campaign's id and fingerprint as columns; a
  // `queued` item (admitted, unsent) may also become rejected: its release returns the reservation.
  [
    'ALTER TABLE jobs ADD COLUMN campaign_id TEXT',
    'ALTER TABLE jobs ADD COLUMN campaign_fp TEXT',
    'CREATE INDEX jobs_campaign ON jobs (campaign_id)',
    'CREATE INDEX jobs_campaign_fp ON jobs (campaign_fp)',
    "CREATE INDEX jobs_queued ON jobs (outcome) WHERE outcome = 'queued'",
    'DROP TRIGGER jobs_fixed',
    `CREATE TRIGGER jobs_fixed BEFORE UPDATE ON jobs
     WHEN NEW.seq IS NOT OLD.seq OR NEW.id IS NOT OLD.id OR NEW.created_at IS NOT OLD.created_at
       OR NEW.fingerprint IS NOT OLD.fingerprint OR NEW.owner IS NOT OLD.owner
       OR NEW.estimate_credits IS NOT OLD.estimate_credits
       OR json_extract(NEW.data, '$.id') IS NOT json_extract(OLD.data, '$.id')
       OR json_extract(NEW.data, '$.createdAt') IS NOT json_extract(OLD.data, '$.createdAt')
       OR json_extract(NEW.data, '$.fingerprint') IS NOT json_extract(OLD.data, '$.fingerprint')
       OR json_extract(NEW.data, '$.owner') IS NOT json_extract(OLD.data, '$.owner')
       OR json_extract(NEW.data, '$.tool') IS NOT json_extract(OLD.data, '$.tool')
       OR json_extract(NEW.data, '$.estimate') IS NOT json_extract(OLD.data, '$.estimate')
       OR json_extract(NEW.data, '$.campaign') IS NOT json_extract(OLD.data, '$.campaign')
       OR NEW.campaign_id IS NOT OLD.campaign_id OR NEW.campaign_fp IS NOT OLD.campaign_fp
       OR (NEW.outcome = 'rejected' AND OLD.outcome NOT IN ('queued', 'pending', 'rejected'))
     BEGIN SELECT RAISE(ABORT, 'jobs: id, created_at, fingerprint, owner, tool, campaign and the quote are fixed at admission; only a queued or pending record can become rejected'); END`,
  ],
  // 6: files kept in the store (issue 22, src/store/blobs.ts): uploads and self-served staged copies, their bytes
  // in rows of at most 1 MiB so writing and serving hold one chunk at a time. Self-contained: no other table.
  [
    `CREATE TABLE blobs (
      id TEXT PRIMARY KEY,
      purpose TEXT NOT NULL,
      owner TEXT,
      kind TEXT,
      state TEXT NOT NULL,
      content_type TEXT,
      filename TEXT,
      size INTEGER,
      sha256 TEXT,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      accepted INTEGER NOT NULL DEFAULT 0,
      fetched INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID`,
    'CREATE INDEX blobs_expires ON blobs (expires_at)',
    'CREATE TABLE blob_chunks (blob_id TEXT NOT NULL, n INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (blob_id, n)) WITHOUT ROWID',
  ],
  // ---- issue 27 item 6 (spool helper): the spend columns the ceilings read; same rule as pg-schema.ts step 7
  // (see there). On SQLite it guards against mistakes (a bug, a tampered spool line), not a hostile process.
  [
    `CREATE TRIGGER jobs_charges_match BEFORE UPDATE ON jobs
     WHEN NEW.data IS NOT OLD.data AND (
       json_extract(NEW.data, '$.creditsCharged') IS NOT NEW.charged
       OR json_extract(NEW.data, '$.creditsRefunded') IS NOT NEW.refunded)
     BEGIN SELECT RAISE(ABORT, 'jobs: the record''s charge and refund must equal the charged and refunded columns'); END`,
    `CREATE TRIGGER jobs_refund_within_charge BEFORE UPDATE ON jobs
     WHEN (NEW.refunded IS NOT OLD.refunded OR NEW.charged IS NOT OLD.charged)
       AND COALESCE(NEW.refunded, 0) > COALESCE(NEW.charged, 0)
     BEGIN SELECT RAISE(ABORT, 'jobs: a refund cannot exceed the charge'); END`,
    `CREATE TRIGGER jobs_charge_not_lowered BEFORE UPDATE ON jobs
     WHEN NEW.charged IS NOT NULL AND NEW.charged IS NOT OLD.charged
       AND NEW.charged < COALESCE(NEW.estimate_credits, 0)
       AND NEW.charged < COALESCE(OLD.charged, NEW.estimate_credits)
       AND OLD.outcome <> 'pending'
       AND ${ACTIVE_ROW('NEW')}
     BEGIN SELECT RAISE(ABORT, 'jobs: the charge of a job that may still run cannot be lowered below its quote'); END`,
  ],
  // ---- end of issue 27 item 6
  // ---- issue 28 items 5-6, 8 (approvalstore helper): approvals held durably (approval-types.ts). Self-contained:
  // new tables only. Decisions and the approval audit are append-only; an approval row changes only while
  // pending, and only its state (same rule as pg-schema.ts).
  [
    ...approvalMigration('', { serial: 'INTEGER PRIMARY KEY AUTOINCREMENT', int: 'INTEGER', real: 'REAL' }, (t) => [
      `CREATE TRIGGER ${t}_no_update BEFORE UPDATE ON ${t} BEGIN SELECT RAISE(ABORT, '${t} is append-only'); END`,
      `CREATE TRIGGER ${t}_no_delete BEFORE DELETE ON ${t} BEGIN SELECT RAISE(ABORT, '${t} is append-only'); END`,
    ]),
    `CREATE TRIGGER approvals_fixed BEFORE UPDATE ON approvals
     WHEN NEW.id IS NOT OLD.id OR NEW.requester IS NOT OLD.requester OR NEW.tool IS NOT OLD.tool
       OR NEW.created_at IS NOT OLD.created_at OR NEW.expires_at IS NOT OLD.expires_at
       OR NEW.campaign_id IS NOT OLD.campaign_id OR NEW.data IS NOT OLD.data OR OLD.state <> 'pending'
     BEGIN SELECT RAISE(ABORT, 'approvals: only a pending approval changes, and only its state'); END`,
  ],
  // ---- end of issue 28
  // ---- issue 29 item 1 (events helper): the event outbox (event-types.ts). Self-contained: new tables only; the
  // delivery log is append-only.
  [
    ...eventMigration('', { serial: 'INTEGER PRIMARY KEY AUTOINCREMENT', int: 'INTEGER' }, (t) => [
      `CREATE TRIGGER ${t}_no_update BEFORE UPDATE ON ${t} BEGIN SELECT RAISE(ABORT, '${t} is append-only'); END`,
      `CREATE TRIGGER ${t}_no_delete BEFORE DELETE ON ${t} BEGIN SELECT RAISE(ABORT, '${t} is append-only'); END`,
    ]),
  ],
  // ---- end of issue 29
  // ---- issue 30 items 3-4 (budgets helper): teams' budgets. Which teams a record was admitted under, fixed at
  // admission (append-only: a team's spend counts what was admitted under it, whatever the membership later), and
  // the teams on the audit rows.
  [
    `CREATE TABLE job_teams (
      team TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      job_id TEXT NOT NULL,
      PRIMARY KEY (team, created_at, job_id)
    ) WITHOUT ROWID`,
    `CREATE TRIGGER job_teams_no_update BEFORE UPDATE ON job_teams BEGIN SELECT RAISE(ABORT, 'job_teams is append-only'); END`,
    `CREATE TRIGGER job_teams_no_delete BEFORE DELETE ON job_teams BEGIN SELECT RAISE(ABORT, 'job_teams is append-only'); END`,
    'ALTER TABLE audit ADD COLUMN teams TEXT',
    // The record's teams (its JSON copy, which later audit rows are written from) are fixed at admission too.
    'DROP TRIGGER jobs_fixed',
    `CREATE TRIGGER jobs_fixed BEFORE UPDATE ON jobs
     WHEN NEW.seq IS NOT OLD.seq OR NEW.id IS NOT OLD.id OR NEW.created_at IS NOT OLD.created_at
       OR NEW.fingerprint IS NOT OLD.fingerprint OR NEW.owner IS NOT OLD.owner
       OR NEW.estimate_credits IS NOT OLD.estimate_credits
       OR json_extract(NEW.data, '$.id') IS NOT json_extract(OLD.data, '$.id')
       OR json_extract(NEW.data, '$.createdAt') IS NOT json_extract(OLD.data, '$.createdAt')
       OR json_extract(NEW.data, '$.fingerprint') IS NOT json_extract(OLD.data, '$.fingerprint')
       OR json_extract(NEW.data, '$.owner') IS NOT json_extract(OLD.data, '$.owner')
       OR json_extract(NEW.data, '$.tool') IS NOT json_extract(OLD.data, '$.tool')
       OR json_extract(NEW.data, '$.estimate') IS NOT json_extract(OLD.data, '$.estimate')
       OR json_extract(NEW.data, '$.campaign') IS NOT json_extract(OLD.data, '$.campaign')
       OR json_extract(NEW.data, '$.teams') IS NOT json_extract(OLD.data, '$.teams')
       OR NEW.campaign_id IS NOT OLD.campaign_id OR NEW.campaign_fp IS NOT OLD.campaign_fp
       OR (NEW.outcome = 'rejected' AND OLD.outcome NOT IN ('queued', 'pending', 'rejected'))
     BEGIN SELECT RAISE(ABORT, 'jobs: id, created_at, fingerprint, owner, tool, campaign, teams and the quote are fixed at admission; only a queued or pending record can become rejected'); END`,
  ],
  // ---- end of issue 30
];

/** Schema versions after which every row's columns are recomputed from its JSON (new columns filled). */
const REWRITE_ROWS_AFTER = new Set([2]);

/** Expired nonces and leases are deleted this often per process: they only need to outlive their token/lease. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const ORDER = NEWEST_FIRST;
const FACTS = factSql('jobs', 'MAX');
const INSERT = `INSERT INTO jobs (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`;
const UPDATE = `UPDATE jobs SET ${COLUMNS.slice(1)
  .map((c) => `${c} = ?`)
  .join(', ')} WHERE id = ?`;

class SqliteStore implements Store {
  readonly description: string;
  private closed = false;
  private lastPrune = 0;
  private readonly st: Record<
    | FactName
    | 'audit'
    | 'auditAppend'
    | 'nonce'
    | 'teamInsert'
    | 'insert'
    | 'update'
    | 'byId'
    | 'bundleItems'
    | 'queuedBundles'
    | 'byHandle'
    | 'byJobKey'
    | 'lease'
    | 'key'
    | 'keyInit',
    StatementSync
  >;

  constructor(
    private readonly db: DatabaseSync,
    readonly path: string,
    private readonly now: () => Date,
    private readonly onAdmitWrite?: (() => void) | undefined,
  ) {
    this.description = `SQLite ${path}`;
    const p = (sql: string) => db.prepare(sql);
    this.st = {
      ...(Object.fromEntries(Object.entries(FACTS).map(([k, sql]) => [k, p(sql)])) as Record<FactName, StatementSync>),
      audit: p(`INSERT INTO audit (${AUDIT_COLUMNS.join(', ')}) VALUES (${AUDIT_COLUMNS.map(() => '?').join(', ')})`),
      auditAppend: p(auditAppendSql('audit')),
      byJobKey: p(`SELECT data FROM jobs WHERE job_key = ? ${ORDER} LIMIT 1`),
      nonce: p('INSERT INTO nonces (hash, expires_at) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING'),
      insert: p(INSERT),
      teamInsert: p('INSERT INTO job_teams (team, created_at, job_id) VALUES (?, ?, ?)'),
      update: p(UPDATE),
      byId: p('SELECT data FROM jobs WHERE id = ?'),
      bundleItems: p(bundleItemsSql('jobs')),
      queuedBundles: p(queuedBundlesSql('jobs')),
      byHandle: p(`SELECT data FROM jobs WHERE handle = ? ${ORDER} LIMIT 1`),
      lease: p(
        `INSERT INTO leases (job_key, holder, until_ms) VALUES (?, ?, ?)
         ON CONFLICT (job_key) DO UPDATE SET holder = excluded.holder, until_ms = excluded.until_ms
         WHERE leases.until_ms <= ?`,
      ),
      key: p(`SELECT value FROM meta WHERE key = 'consent_key'`),
      keyInit: p(`INSERT INTO meta (key, value) VALUES ('consent_key', ?) ON CONFLICT (key) DO NOTHING`),
    };
  }

  private open(): void {
    if (this.closed) throw new Error('The job store is closed.');
  }

  /** One write transaction; `durable: false` commits without waiting for the disk (WAL + synchronous=NORMAL). */
  private tx<T>(fn: () => T, durable = true): T {
    this.open();
    if (!durable) this.db.exec('PRAGMA synchronous = NORMAL');
    try {
      try {
        this.db.exec('BEGIN IMMEDIATE');
      } catch (err) {
        throw storeStateError(err, this.path);
      }
      let committing = false;
      try {
        const out = fn();
        committing = true;
        this.db.exec('COMMIT');
        return out;
      } catch (err) {
        try {
          this.db.exec('ROLLBACK');
        } catch {
          // already rolled back by SQLite (e.g. on a full disk)
        }
        // A failed COMMIT (an I/O error while the WAL frames were written) cannot prove the write did not land.
        if (committing) throw new CommitUnknownError({ cause: storeStateError(err, this.path) });
        throw storeStateError(err, this.path);
      }
    } finally {
      if (!durable) this.db.exec('PRAGMA synchronous = FULL');
    }
  }

  /** The facts `rules` names, read on this connection (inside `admit`'s transaction, or plainly). */
  private facts(rules: AdmitRules): AdmissionFacts {
    const rows = factPlan(rules).map(({ fact, args, budget }) => ({
      fact,
      budget,
      row: this.st[fact].get(...args) as Record<string, unknown> | undefined,
    }));
    return factsFrom(this.now(), rows);
  }

  async readAdmissionFacts(rules: AdmitRules): Promise<AdmissionFacts> {
    this.open();
    return this.facts(rules);
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
    this.open();
    this.pruneNow();
    return this.tx((): BundleAdmitResult => {
      const base = this.facts(rules);
      const found = (itemFacts ? itemFactPlan(items, rules, base) : []).map((query) => ({
        query,
        row: this.st[query.fact].get(...query.args) as { data: string } | undefined,
      }));
      const facts = withItemFacts(base, rules, found);
      const refusal = rule(
        items.map((i) => i.estimate?.credits ?? Number.NaN),
        facts,
        rules,
      );
      if (refusal) return { admitted: false, ...refusal };
      if (rules.nonce) {
        const { changes } = this.st.nonce.run(nonceHash(rules.nonce.value), rules.nonce.expiresAt.getTime());
        if (Number(changes) === 0) return { admitted: false, reason: 'token_used' };
      }
      const records = items.map((i) => newRecord(i, this.now(), rules.teams));
      for (const record of records) {
        this.st.insert.run(...toRow(record));
        for (const row of teamRows(record)) this.st.teamInsert.run(...row);
        this.st.audit.run(...auditRow(record, 'admit', this.now()));
      }
      const alerts = sqliteEmit(this.db, admissionEvents(items, facts, rules, this.now().getTime()));
      this.onAdmitWrite?.();
      return { admitted: true, records, alerts };
    });
  }

  async claimItem(id: string, patch: JobPatch, from: ItemWait = 'queued'): Promise<JobRecord | undefined> {
    return this.tx(() => {
      const row = this.st.byId.get(id) as { data: string } | undefined;
      if (!row) return undefined;
      const before = fromData(row.data);
      if (!waitsAs(before, from)) return undefined;
      const merged = mergePatch(before, patch, this.now());
      const [, ...rest] = toRow(merged);
      this.st.update.run(...rest, id);
      if (auditChanged(before, merged)) this.st.auditAppend.run(...auditRow(merged, 'settle', this.now()), id);
      this.emitJobEvents(before, merged);
      return merged;
    });
  }

  /** Inside a write transaction: the events of `before` → `after` (and its campaign's, read under the lock). */
  private emitJobEvents(before: JobRecord, after: JobRecord): void {
    const at = this.now().getTime();
    const events: NewEvent[] = jobEvents(before, after, at);
    if (endsCampaignItem(before, after) && after.campaign) {
      const items = (this.st.bundleItems.all(after.campaign.id) as { data: string }[]).map((r) => fromData(r.data));
      events.push(...campaignEvents(after, items, at));
    }
    sqliteEmit(this.db, events);
  }

  async bundleItems(campaignId: string): Promise<JobRecord[]> {
    this.open();
    return (this.st.bundleItems.all(campaignId) as { data: string }[]).map((r) => fromData(r.data));
  }

  async queuedBundles(): Promise<string[]> {
    this.open();
    return (this.st.queuedBundles.all() as { campaign_id: string }[]).map((r) => r.campaign_id);
  }

  async track(intent: NewJobRecord): Promise<JobRecord> {
    return this.tx(() => {
      const record = newRecord(intent, this.now());
      this.st.insert.run(...toRow(record));
      return record;
    });
  }

  private patch(id: string, patch: JobPatch, event: 'settle' | 'observe'): JobRecord {
    return this.tx(() => {
      const row = this.st.byId.get(id) as { data: string } | undefined;
      if (!row) throw new Error(`The job store has no record ${id}.`);
      const before = fromData(row.data);
      const merged = mergePatch(before, patch, this.now());
      const [, ...rest] = toRow(merged);
      this.st.update.run(...rest, id);
      // Same transaction: the audit trail never misses nor invents a change the record holds.
      if (auditChanged(before, merged)) this.st.auditAppend.run(...auditRow(merged, event, this.now()), id);
      // Same transaction again: an event exists exactly when the transition that causes it committed.
      this.emitJobEvents(before, merged);
      return merged;
    }, event === 'settle');
  }

  async settle(id: string, result: Settlement): Promise<JobRecord> {
    return this.patch(id, result, 'settle');
  }

  async observe(id: string, patch: Observation): Promise<JobRecord> {
    return this.patch(id, patch, 'observe');
  }

  async get(idOrHandle: string): Promise<JobRecord | undefined> {
    this.open();
    let row = this.st.byId.get(idOrHandle) as { data: string } | undefined;
    // A `submission:<id>` handle keeps working after the record got its platform handle.
    const ref = row ? undefined : decodeHandle(idOrHandle);
    if (!row && ref?.kind === 'submission') row = this.st.byId.get(ref.id) as { data: string } | undefined;
    row ??= this.st.byHandle.get(idOrHandle.trim()) as { data: string } | undefined;
    return row ? fromData(row.data) : undefined;
  }

  async getByRef(ref: JobRef): Promise<JobRecord | undefined> {
    this.open();
    const row =
      ref.kind === 'submission'
        ? (this.st.byId.get(ref.id) as { data: string } | undefined)
        : (this.st.byJobKey.get(jobKeyColumn(ref)) as { data: string } | undefined);
    return row ? fromData(row.data) : undefined;
  }

  async list(filter: JobFilter = {}): Promise<JobRecord[]> {
    this.open();
    if (filter.status?.length === 0) return [];
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (filter.owner !== undefined) {
      where.push('owner = ?');
      args.push(filter.owner);
    }
    if (filter.since) {
      where.push('created_at >= ?');
      args.push(filter.since.getTime());
    }
    if (filter.status) {
      where.push(`status IN (${filter.status.map(() => '?').join(', ')})`);
      args.push(...filter.status);
    }
    const sql = `SELECT data FROM jobs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ${ORDER}${
      filter.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(filter.limit))}` : ''
    }`;
    return (this.db.prepare(sql).all(...args) as { data: string }[]).map((r) => fromData(r.data));
  }

  async spendSince(since: Date, owner?: string): Promise<number> {
    this.open();
    const row =
      owner === undefined ? this.st.spentToday.get(since.getTime()) : this.st.spentByOwner.get(since.getTime(), owner);
    return Number((row as { spent: number }).spent);
  }

  async auditEvents(filter: AuditFilter = {}): Promise<AuditEvent[]> {
    this.open();
    const sql = auditSelectSql('audit', { since: filter.since !== undefined, owner: filter.owner !== undefined });
    const args: (string | number)[] = [];
    if (filter.since) args.push(filter.since.getTime());
    if (filter.owner !== undefined) args.push(filter.owner);
    return (this.db.prepare(sql).all(...args) as Record<string, unknown>[]).map(fromAuditRow);
  }

  async consentKey(): Promise<Buffer> {
    this.open();
    const row = this.st.key.get() as { value: string } | undefined;
    if (row) return Buffer.from(row.value, 'hex');
    // Two processes may race here: ON CONFLICT DO NOTHING keeps the first, and both read it back.
    this.st.keyInit.run(randomBytes(CONSENT_KEY_BYTES).toString('hex'));
    return Buffer.from((this.st.key.get() as { value: string }).value, 'hex');
  }

  async tryLease(jobKey: string, ms: number, holder: string): Promise<boolean> {
    this.open();
    const now = this.now().getTime();
    return Number(this.st.lease.run(jobKey, holder, now + ms, now).changes) === 1;
  }

  async schemaVersion(): Promise<number> {
    this.open();
    return userVersion(this.db);
  }

  private approvalsOnDb: ApprovalStoreMethods | undefined;
  private get approvalMethods(): ApprovalStoreMethods {
    this.approvalsOnDb ??= sqliteApprovals(
      this.db,
      (fn) => this.tx(fn),
      () => this.open(),
      {
        requested: (a) => sqliteEmit(this.db, [approvalRequested(a)]),
        decided: (a, decision, at, by) => sqliteEmit(this.db, [approvalDecided(a, decision, at, by)]),
      },
    );
    return this.approvalsOnDb;
  }
  createApproval: Store['createApproval'] = (r) => this.approvalMethods.createApproval(r);
  approval: Store['approval'] = (id) => this.approvalMethods.approval(id);
  decideApproval: Store['decideApproval'] = (id, d, judge) => this.approvalMethods.decideApproval(id, d, judge);
  approvalsAwaiting: Store['approvalsAwaiting'] = (who, now) => this.approvalMethods.approvalsAwaiting(who, now);
  expireApprovals: Store['expireApprovals'] = (now) => this.approvalMethods.expireApprovals(now);
  approvalAudit: Store['approvalAudit'] = (f) => this.approvalMethods.approvalAudit(f);

  private eventsOnDb: EventStoreMethods | undefined;
  private get eventMethods(): EventStoreMethods {
    // Not forced to disk (like `observe`): a delivery mark or lease lost to a power cut means one more delivery
    // under the same webhook-id (at least once), never a lost event. A kill -9 loses nothing (WAL).
    this.eventsOnDb ??= sqliteEvents(
      this.db,
      (fn) => this.tx(fn, false),
      () => this.open(),
    );
    return this.eventsOnDb;
  }
  events: Store['events'] = (after, limit) => this.eventMethods.events(after, limit);
  fanOutEvents: Store['fanOutEvents'] = (eps, since, after, now) =>
    this.eventMethods.fanOutEvents(eps, since, after, now);
  leaseDeliveries: Store['leaseDeliveries'] = (ep, holder, now, ms, limit) =>
    this.eventMethods.leaseDeliveries(ep, holder, now, ms, limit);
  recordDelivery: Store['recordDelivery'] = (d, holder, o) => this.eventMethods.recordDelivery(d, holder, o);
  deliveryLog: Store['deliveryLog'] = (limit) => this.eventMethods.deliveryLog(limit);
  deliverySummary: Store['deliverySummary'] = () => this.eventMethods.deliverySummary();

  private blobStore: BlobStore | undefined;
  blobs(): BlobStore {
    this.open();
    this.blobStore ??= sqliteBlobs(this.db);
    return this.blobStore;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  private pruneNow(): void {
    const now = this.now().getTime();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    try {
      this.db.prepare('DELETE FROM nonces WHERE expires_at < ?').run(now - NONCE_GRACE_MS);
      this.db.prepare('DELETE FROM leases WHERE until_ms < ?').run(now);
      this.lastPrune = now;
    } catch {
      // Housekeeping only (expired rows are never read as live); another process holding the write lock
      // must not fail this call here. Tried again on the next admit.
    }
  }

  /** Writes a 0.1 state dir's content; called inside the transaction that creates the schema. */
  applyImport(bundle: LedgerImport): void {
    for (const r of bundle.records) this.st.insert.run(...toRow(r));
    for (const n of bundle.nonces) this.st.nonce.run(n.hash, n.expiresAt);
    if (bundle.secret) this.st.keyInit.run(bundle.secret.toString('hex'));
    this.db
      .prepare(`INSERT INTO meta (key, value) VALUES ('ledger_imported', ?)`)
      .run(`${this.now().toISOString()} ${bundle.records.length} records`);
  }
}

/** Recomputes every row's columns from its JSON (a migration that added columns derived from the record). */
function rewriteRows(db: DatabaseSync): void {
  const update = db.prepare(UPDATE);
  for (const row of db.prepare('SELECT data FROM jobs').all() as { data: string }[]) {
    const [id, ...rest] = toRow(fromData(row.data));
    update.run(...rest, id as string);
  }
}

function userVersion(db: DatabaseSync): number {
  return Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
}

/**
 * Switches a new database file to WAL. Several processes opening a fresh file at once race for the exclusive
 * lock this needs, and SQLite can answer "database is locked" at once instead of waiting out the busy timeout
 * (seen in test/store/multi-process.test.ts on a loaded CI box): retried for up to ~2 s.
 */
function setWal(db: DatabaseSync): void {
  for (let attempt = 0; ; attempt++) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (err) {
      if (attempt >= 40 || !/database is locked|SQLITE_BUSY/i.test(String(err))) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
}

/**
 * Opens (creating and migrating if needed) `<stateDir>/genplat.db`. Several processes may open it at once.
 * @throws SchemaTooNewError when a newer genplat-mcp wrote it; file-system and SQLite errors.
 */
export async function openSqliteStore(stateDir: string, options: SqliteStoreOptions = {}): Promise<Store> {
  const log = options.log ?? createLogger('warn');
  const now = options.now ?? (() => new Date());
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const path = join(stateDir, DB_FILE);
  const { DatabaseSync } = loadSqlite();
  const db = new DatabaseSync(path, { timeout: options.busyTimeoutMs ?? 10_000 });
  try {
    setWal(db);
    db.exec('PRAGMA synchronous = FULL');
    const found = userVersion(db);
    if (found > SCHEMA_VERSION) throw new SchemaTooNewError(path, found, SCHEMA_VERSION);
    // Read a 0.1 state dir before the transaction (file reads are async); written inside it only when this
    // open is the one that creates the schema.
    const bundle = found === 0 && options.importLedger !== false ? await readLedgerForImport(stateDir, log) : undefined;
    db.exec('BEGIN IMMEDIATE');
    let created = false;
    try {
      const current = userVersion(db); // another process may have migrated while we read
      if (current > SCHEMA_VERSION) throw new SchemaTooNewError(path, current, SCHEMA_VERSION);
      for (let v = current; v < SCHEMA_VERSION; v++) for (const sql of MIGRATIONS[v] ?? []) db.exec(sql);
      // After the last step: the rewrite writes every column this code knows, some added by later steps.
      if (current > 0 && [...REWRITE_ROWS_AFTER].some((v) => v > current)) rewriteRows(db);
      if (current < SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
      created = current === 0;
      const store = new SqliteStore(db, path, now, options.onAdmitWrite);
      if (created && bundle) store.applyImport(bundle);
      db.exec('COMMIT');
      if (created && bundle) await setLedgerAside(stateDir);
      return store;
    } catch (err) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // nothing to roll back
      }
      throw err;
    }
  } catch (err) {
    db.close();
    throw err;
  }
}
