/**
 * The store behind every paid call (issue 10). Its centre is `admitBundle` (`admit` = a bundle of one): ONE
 * transaction that answers "may this call (or every item of a campaign) start now?" and records that it did — per-call ceiling, per-day ceiling, duplicate rule, single use of
 * the confirmation, insert of the intent — so two processes (or a fleet of instances) can never both pass a
 * check before either wrote. Two backends implement it with the same tests (`test/store/suite.ts`):
 *
 * - SQLite (`sqlite.ts`, the default): `<stateDir>/genplat.db` through `node:sqlite`. Several processes on one
 *   state dir are serialized by SQLite itself (`BEGIN IMMEDIATE`). Backup: `sqlite3 genplat.db ".backup
 *   copy.db"` (safe while servers run; copying the file alone can miss the WAL).
 * - PostgreSQL (`postgres.ts`, for a fleet): `GENPLAT_DATABASE_URL=postgres://…`. Admission is serialized per
 *   platform account with `pg_advisory_xact_lock`. Backup: `pg_dump`.
 *
 * What is stored: every job record (the `JobRecord` shape, queried fields as columns and the whole record as
 * JSON), the hashes of used confirmation nonces until their token expires, the consent key (32 random bytes
 * that sign confirmation tokens), short poller leases, and the schema version. No API key, ever.
 *
 * No network call happens inside any transaction here: callers read what they need from the platform before
 * `admit` and pass it in.
 */
import type { JobOutput, JobStatus } from '../jobs/envelope.js';
import type { JobKind, JobRef } from '../jobs/handle.js';
import type { JobFilter, JobPatch, JobRecord, NewJobRecord } from '../jobs/store.js';
import type { ApprovalStoreMethods } from './approval-types.js';
import type { BlobStore } from './blobs.js';
import type { EventStoreMethods, NewEvent } from './event-types.js';

export type { JobFilter, JobPatch, JobRecord, NewJobRecord };

/** The schema this code writes. A store written by a newer schema is refused, never skipped. */
export const SCHEMA_VERSION = 10;

/** A budget's period (UTC): `day` from midnight, `week` from Monday 00:00 (ISO week), `month` from the 1st 00:00. */
export type BudgetPeriod = 'day' | 'week' | 'month';
export type BudgetScope = 'account' | 'person' | 'team';

/**
 * One budget of `AdmitRules.budgets` (issue 30 item 3): spend since `since` (the period's start) within `scope`
 * (`account`: every record; `person`: the records of owner `name`; `team`: the records admitted under team `name`,
 * whoever is in the team now) + this call's quote above `limit` is refused.
 */
export interface BudgetRule {
  scope: BudgetScope;
  /** person: the person's owner id (their people-file entry's, when they have one); team: its name; account: undefined. */
  name?: string | undefined;
  /**
   * person only: every owner id of the person (their entry's id and its `also` ids), whose spend counts together;
   * undefined = `name` alone.
   */
  owners?: readonly string[] | undefined;
  period: BudgetPeriod;
  since: Date;
  limit: number;
}

export interface AdmitRules {
  /** GENPLAT_MAX_CREDITS_PER_CALL: an estimate above it is refused. */
  maxCreditsPerCall: number;
  /** GENPLAT_MAX_CREDITS_PER_DAY: account-wide spend since `dayStart` + this estimate above it is refused. */
  maxCreditsPerDay: number;
  /** Start of the ceiling's day (UTC midnight, `utcDayStart`). */
  dayStart: Date;
  /**
   * The caller's own per-day ceiling (GENPLAT_USER_MAX_CREDITS_PER_DAY / GENPLAT_USER_BUDGETS): the owner's
   * spend since `dayStart` (same rule as the account's) + this estimate above `maxCreditsPerDay` is refused.
   * Undefined = no per-user limit (stdio, or none configured). Checked after the account's ceiling.
   */
  user?:
    | {
        owner: string;
        maxCreditsPerDay: number;
        owners?: readonly string[] | undefined;
        /** Where the limit is set (a config variable), for the refusal to name. */
        where?: string | undefined;
      }
    | undefined;
  /**
   * Every other budget that applies to this caller (account week/month, person week/month, each team's day/week/
   * month; src/paid/budgets.ts `budgetRules`), checked in this order after `maxCreditsPerDay` and `user`.
   */
  budgets?: BudgetRule[] | undefined;
  /**
   * The caller's teams, decided from verified identity at admission (people file groups, OAuth groups claim):
   * written on every admitted record (`JobRecord.teams`, the audit's admit row) so a team's spend counts what was
   * admitted under it even when membership changes later.
   */
  teams?: readonly string[] | undefined;
  /**
   * The duplicate guard, or undefined when the call says `allow_duplicate`. `legacyFingerprint`: the same call
   * as 0.1 fingerprinted it (`fingerprint01`), so records imported from a 0.1 ledger are matched too. An undefined owner (stdio)
   * matches records of every owner, as the 0.1 ledger did.
   */
  duplicate?:
    | {
        fingerprint: string;
        owner: string | undefined;
        legacyFingerprint?: string | undefined;
        /** Every id of the owner's person (the people file's `also`): an identical request under any is a duplicate. */
        owners?: readonly string[] | undefined;
      }
    | undefined;
  /**
   * The allow_duplicate-after-unknown rule (`allow_duplicate: true` only): refuse while an identical submission
   * (same fingerprint, owner as in `duplicate`) is `pending` or `unknown`, other than `except` — the one the
   * user was warned about and consented past. One that appeared after consent was never agreed to.
   */
  unsettled?:
    | {
        fingerprint: string;
        owner: string | undefined;
        except?: string | undefined;
        legacyFingerprint?: string | undefined;
        /** As `duplicate.owners`. */
        owners?: readonly string[] | undefined;
      }
    | undefined;
  /**
   * At most one active record per key (upscale_video: one attempt per video). Records without platform ids
   * (`submission:` handles: pending or unknown) block only when created at or after `staleBefore`, since
   * nothing can ever re-read them. The caller refreshes stale records with free GETs BEFORE admit.
   */
  exclusive?: { key: string; staleBefore: Date } | undefined;
  /**
   * Bundles: each item's exclusive key (by item index; undefined for an item without one), read
   * like `exclusive` inside the campaign's transaction (upscale_video items: one attempt per video).
   */
  itemExclusive?: ({ key: string; staleBefore: Date } | undefined)[] | undefined;
  /** The confirmation token's nonce, consumed (single use, across processes) when the call is admitted. */
  nonce?: { value: string; expiresAt: Date } | undefined;
}

export type AdmitRefusal =
  /** `item`: the campaign item (0-based) over the per-call ceiling. */
  | { reason: 'per_call'; limit: number; credits: number; item?: number | undefined }
  | { reason: 'per_day'; limit: number; credits: number; spent: number }
  | { reason: 'per_user_day'; owner: string; limit: number; credits: number; spent: number; where?: string | undefined }
  /** A budget of `AdmitRules.budgets`: which one (scope, name, period), since when, and the figures. */
  | {
      reason: 'budget';
      scope: BudgetScope;
      name?: string | undefined;
      period: BudgetPeriod;
      since: Date;
      limit: number;
      credits: number;
      spent: number;
    }
  | { reason: 'duplicate'; record: JobRecord }
  | { reason: 'unsettled'; record: JobRecord }
  /** `item`: the campaign item whose exclusive key `record` holds. */
  | { reason: 'exclusive'; record: JobRecord; item?: number | undefined }
  | { reason: 'token_used' };

export type AdmitResult = { admitted: true; record: JobRecord } | ({ admitted: false } & AdmitRefusal);

/**
 * An item of a bundle as admitted: its own outcome says who sends it. `pending`: its caller, at once (a single
 * call; claimed at admission, so a crash before its POST leaves it pending, never sent by anyone else). `queued`:
 * the outbox (a campaign's items), claimed queued → pending by whoever sends it.
 */
export type BundleItem = NewJobRecord & { outcome: 'pending' | 'queued' };

/** Where a queued bundle item waits: for a sender (`queued`), or for something else first (`held`, `JobRecord.held`). */
export type ItemWait = 'queued' | 'held';

/** Whether `rec` waits as `from` says (the compare of `claimItem`'s compare-and-set). */
export function waitsAs(rec: JobRecord, from: ItemWait): boolean {
  return rec.outcome === 'queued' && (rec.held !== undefined) === (from === 'held');
}

/** A bundle's admission (issue 21, 28): every item admitted, or none. */
export type BundleAdmitResult =
  | {
      admitted: true;
      records: JobRecord[];
      /**
       * The `budget.threshold` events this admission newly wrote (not ones an earlier admission of the period
       * already wrote): the caller logs each once, after the commit (src/paid/budget-alerts.ts).
       */
      alerts?: NewEvent[] | undefined;
    }
  | ({ admitted: false } & AdmitRefusal);

/** A bundle's admission rule (`src/paid/admission.ts`): per-item quotes, the facts, the rules. */
export type BundleAdmissionRule = (
  items: readonly number[],
  facts: AdmissionFacts,
  rules: AdmitRules,
) => AdmitRefusal | undefined;

/**
 * What a store reads for an admission: only what `rules` names (no `user` → no owner spend, …). Read under the
 * store's lock inside `admit`, or plainly by `readAdmissionFacts` for the pre-check before consent.
 */
export interface AdmissionFacts {
  /** The store's clock (token expiry is judged on it). */
  now: Date;
  /** Account-wide spend since `rules.dayStart` (`spendSql`). */
  spentToday: number;
  /** `rules.user.owner`'s spend since `rules.dayStart`; undefined without `rules.user`. */
  spentByOwner?: number | undefined;
  /** The spend of each `rules.budgets[i]` in its scope since its `since` (same index); undefined without budgets. */
  budgetSpent?: number[] | undefined;
  /** The newest identical record that may still run (`rules.duplicate`). */
  duplicate?: JobRecord | undefined;
  /** The newest identical pending/unknown record other than `rules.unsettled.except`. */
  unsettled?: JobRecord | undefined;
  /** The active holder of `rules.exclusive.key`. */
  exclusive?: JobRecord | undefined;
  /** The active holder of each campaign item's key (`rules.itemExclusive`, same indexes). */
  itemExclusive?: (JobRecord | undefined)[] | undefined;
}

/**
 * The admission rule (`src/paid/admission.ts` `evaluateAdmission`): pure, given the facts. The store takes it as
 * an argument so the store layer decides nothing and imports nothing of the paid path.
 */
export type AdmissionRule = (credits: number, facts: AdmissionFacts, rules: AdmitRules) => AdmitRefusal | undefined;

/** What the answer to the POST taught us. Always durable before `settle` resolves (invariant 3). */
export interface Settlement {
  outcome: 'submitted' | 'rejected' | 'unknown';
  handle?: string | undefined;
  /** The platform reference (the only carrier of ids no handle can hold). */
  ref?: JobRef | undefined;
  kind?: JobKind | undefined;
  status?: JobStatus | undefined;
  requestId?: string | undefined;
  remote?: Record<string, string> | undefined;
  outputs?: JobOutput[] | undefined;
  creditsCharged?: number | undefined;
  /** The platform's own estimate in the submit answer (counted like a charge, reconcile.ts). */
  platformEstimate?: number | undefined;
  originalUrl?: string | undefined;
  reason?: string | undefined;
}

/** What a poll taught us. Not forced to disk: a status lost to a power cut is read again by the next poll. */
export type Observation = Pick<
  JobPatch,
  | 'status'
  | 'outputs'
  | 'creditsCharged'
  | 'creditsRefunded'
  | 'platformEstimate'
  | 'reason'
  | 'handle'
  | 'ref'
  | 'kind'
  | 'remote'
  | 'outcome'
>;

/**
 * One row of the audit trail (`genplat_audit` / `audit`): append-only, never updated or deleted (the table
 * refuses both with a trigger). A paid call writes an `admit` row in the admit transaction (who, when, tool,
 * quote, consent carrier), then each later write of its record that changes an audited field appends a
 * `settle` (the POST's answer: outcome, request id, charge at submit) or `observe` (a poll that changed the
 * status or a reported figure) row with the record's audited fields as they then were. The call's current
 * state is its newest row (`src/audit/export.ts` folds them). Never a token, the API key or request bodies.
 */
export interface AuditEvent {
  /** Insertion order across the store (ties of `at` are broken by it). */
  seq: number;
  /** ISO time of the write. */
  at: string;
  event: 'admit' | 'settle' | 'observe';
  /** The job record (ledger id) this row is about. */
  ledgerId: string;
  /** The caller; undefined on stdio. */
  owner: string | undefined;
  tool: string;
  kind: string | undefined;
  /** The consented quote, displayed credits. */
  quoteCredits: number | undefined;
  consent: string | undefined;
  /** The platform's `x-request-id` of the paid POST, once known. */
  requestId: string | undefined;
  outcome: string;
  status: string;
  charged: number | undefined;
  refunded: number | undefined;
  platformEstimate: number | undefined;
  handle: string;
  /** `admit` rows: the teams the call counts in (budgets by team, issue 30); absent on older rows. */
  teams?: string[] | undefined;
}

export interface AuditFilter {
  /** Only calls admitted at or after this instant (all of their rows, however late). */
  since?: Date | undefined;
  owner?: string | undefined;
}

/**
 * `ApprovalStoreMethods`: approvals held durably (issue 28, approval-types.ts). `EventStoreMethods`: the event
 * outbox and its deliveries (issue 29, event-types.ts), written in the transactions below.
 */
export interface Store extends ApprovalStoreMethods, EventStoreMethods {
  /** Which backend and where (no credentials): for `doctor` and logs. */
  readonly description: string;
  /**
   * The one admission transaction of every paid request (issue 28 item 7): a bundle of items — a single call is
   * a bundle of one, a campaign a bundle of N. Under the store's lock it reads the facts `rules` names (and, for
   * an item whose fingerprint is not the bundle's own, that item's duplicate / unsettled / exclusive facts), asks
   * `rule` with every item's quote (refuses with what it answers), consumes the token's nonce (a unique insert:
   * `token_used` when already there), and inserts every item with its own outcome — `pending` when its caller
   * sends it at once (claimed at admission), `queued` for the outbox — or nothing.
   */
  admitBundle(items: BundleItem[], rules: AdmitRules, rule: BundleAdmissionRule): Promise<BundleAdmitResult>;
  /** `admitBundle` of one `pending` intent with the single-call rule (`evaluateAdmission`). */
  admit(intent: NewJobRecord, rules: AdmitRules, rule: AdmissionRule): Promise<AdmitResult>;
  /**
   * Compare-and-set on one bundle item: applies `patch` only while the item is `queued` and held or not as `from`
   * says (default `'queued'`: not held), in one transaction. `{ outcome: 'pending' }` claims it for its POST
   * (whoever gets the record back POSTs it, once); `{ outcome: 'rejected' }` releases it (its reservation stops
   * counting); from `'held'`, `{ held: undefined }` lets it be sent. undefined = it was not in that state.
   */
  claimItem(id: string, patch: JobPatch, from?: ItemWait): Promise<JobRecord | undefined>;
  /** Every item of a bundle, by index. */
  bundleItems(bundleId: string): Promise<JobRecord[]>;
  /** Bundles that still have `queued` items (the outbox sweep's work list), oldest first. */
  queuedBundles(): Promise<string[]>;
  /** The same facts as `admit` reads, without a lock or a write: for the pre-check before consent. */
  readAdmissionFacts(rules: AdmitRules): Promise<AdmissionFacts>;
  /**
   * Inserts a record for a job started elsewhere (get_job by kind + id): no admission, it cost nothing here.
   */
  track(rec: NewJobRecord): Promise<JobRecord>;
  /** @throws if the id is unknown. */
  settle(id: string, result: Settlement): Promise<JobRecord>;
  /** @throws if the id is unknown. */
  observe(id: string, patch: Observation): Promise<JobRecord>;
  /** By ledger id, by `submission:<id>` handle, or the newest record with that handle. */
  get(idOrHandle: string): Promise<JobRecord | undefined>;
  /**
   * The newest record of the job `ref` names, compared by `jobKey` (kind + platform id), so every alias of a
   * handle finds it; a `submission:<id>` ref finds its record by ledger id.
   */
  getByRef(ref: JobRef): Promise<JobRecord | undefined>;
  /** Newest first. */
  list(filter?: JobFilter): Promise<JobRecord[]>;
  /** Same semantics as the 0.1 ledger (`spend.ts` `SPEND_SQL` documents them); owner undefined = account-wide. */
  spendSince(since: Date, owner?: string): Promise<number>;
  /** The audit rows of the paid calls the filter selects, oldest first (`seq`). */
  auditEvents(filter?: AuditFilter): Promise<AuditEvent[]>;
  /** 32 random bytes created once in the store and shared by every process and instance. */
  consentKey(): Promise<Buffer>;
  /**
   * One poller lease per job: true when no lease on `jobKey` is alive, and then this holder holds it for
   * `ms`. A fleet that reads a job only with a fresh lease reads it at most once per `ms`.
   */
  tryLease(jobKey: string, ms: number, holder: string): Promise<boolean>;
  schemaVersion(): Promise<number>;
  /** Files kept in the store (uploads, self-served staging: blobs.ts); absent on a store that has none. */
  blobs?(): BlobStore;
  /** PostgreSQL only: which kind of database role the store connects as (pg-roles.ts, docs/storage.md). */
  role?(): Promise<StoreRole>;
  close(): Promise<void>;
}

/** The store's database role, from the catalog (pg-roles.ts `storeRole`). */
export type StoreRole =
  /** Owns the tables (or is a member of their owner, or a superuser): can migrate, and can alter the audit. */
  | { kind: 'owner'; user: string; superuser: boolean }
  /** Exactly the runtime grants. */
  | { kind: 'runtime'; user: string }
  /** Not the owner, but missing a privilege the server needs (`table: PRIV`). */
  | { kind: 'limited'; user: string; missing: string[] }
  /** Not the owner, but holding more than the runtime grants (`table: PRIV`): not least privilege. */
  | { kind: 'broad'; user: string; extra: string[] };

/** Thrown at open when the store was written by a newer genplat-mcp. */
export class SchemaTooNewError extends Error {
  constructor(where: string, found: number, known: number) {
    super(
      `${where} was written by a newer genplat-mcp (schema ${found}, this one knows ${known}); upgrade genplat-mcp, or point it at another store. Refusing to open it rather than miscount spend.`,
    );
    this.name = 'SchemaTooNewError';
  }
}

/**
 * Thrown at open when the schema is older than this code (or missing) and the connected role does not own it:
 * a runtime role never migrates (docs/storage.md).
 */
export class SchemaMigrationNeededError extends Error {
  constructor(where: string, found: number, known: number) {
    super(
      `${where} ${found === 0 ? 'has no genplat-mcp schema yet' : `is at schema ${found}, this genplat-mcp needs ${known}`}, and this database role does not own it, so it may not migrate it. Run \`genplat-mcp db migrate\` with GENPLAT_DATABASE_URL set to the migration role (the owner of the genplat_* tables), then start again (docs/storage.md).`,
    );
    this.name = 'SchemaMigrationNeededError';
  }
}
