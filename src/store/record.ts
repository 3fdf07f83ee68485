/**
 * What both backends share, so they cannot drift: how an intent becomes a record, how a patch merges, which
 * record fields become columns, and the spend and "still active" rules as SQL.
 */
import { createHash, randomUUID } from 'node:crypto';
import { encodeHandle, type JobRef, jobKey, recordRef } from '../jobs/handle.js';
import type { AdmissionFacts, AdmitRules, AuditEvent, JobPatch, JobRecord, NewJobRecord } from './types.js';

/** Fields fixed at intent time; a patch never changes them (same list as the 0.1 ledger). */
const IMMUTABLE = [
  'id',
  'createdAt',
  'fingerprint',
  'tool',
  'owner',
  'ownerName',
  'ownerEmail',
  'teams',
  'updatedAt',
] as const;

/** `teams`: the caller's teams at admission (`AdmitRules.teams`), fixed on the record. */
export function newRecord(rec: NewJobRecord, now: Date, teams?: readonly string[]): JobRecord {
  // The caller may name the id in advance (the paid pipeline does, to find an admission whose answer was lost).
  const id = rec.id ?? randomUUID();
  const at = now.toISOString();
  return {
    id,
    handle: rec.handle ?? encodeHandle({ kind: 'submission', id }),
    tool: rec.tool,
    kind: rec.kind,
    fingerprint: rec.fingerprint,
    summary: rec.summary,
    estimate: rec.estimate,
    consent: rec.consent,
    outcome: rec.outcome ?? 'pending',
    // The POST is about to go out; `outcome` says whether it was confirmed.
    status: rec.status ?? 'submitted',
    requestId: undefined,
    remote: rec.remote,
    outputs: [],
    reason: undefined,
    creditsCharged: undefined,
    creditsRefunded: undefined,
    originalUrl: rec.originalUrl,
    ...(rec.ref ? { ref: rec.ref } : {}),
    ...(rec.exclusiveKey !== undefined ? { exclusiveKey: rec.exclusiveKey } : {}),
    ...(rec.campaign ? { campaign: rec.campaign } : {}),
    ...(rec.held ? { held: rec.held } : {}),
    owner: rec.owner,
    ...(rec.ownerName ? { ownerName: rec.ownerName } : {}),
    ...(rec.ownerEmail ? { ownerEmail: rec.ownerEmail } : {}),
    ...(teams?.length ? { teams: [...teams] } : {}),
    createdAt: at,
    updatedAt: at,
  };
}

/** An explicit `undefined` in the patch clears the field, as in the 0.1 ledger. */
export function mergePatch(rec: JobRecord, patch: JobPatch, now: Date): JobRecord {
  const data: Record<string, unknown> = { ...patch };
  for (const key of IMMUTABLE) delete data[key];
  return { ...rec, ...(data as JobPatch), updatedAt: now.toISOString() };
}

/** Column values of a record, in `COLUMNS` order. `data` is the whole record, so reading never rebuilds it. */
export function toRow(r: JobRecord): (string | number | null)[] {
  return [
    r.id,
    r.owner ?? null,
    r.fingerprint,
    r.outcome,
    r.status,
    Date.parse(r.createdAt),
    r.handle,
    r.estimate?.credits ?? null,
    r.creditsCharged ?? null,
    r.creditsRefunded ?? null,
    r.platformEstimate ?? null,
    recordJobKey(r) ?? null,
    r.exclusiveKey ?? legacyExclusiveKey(r) ?? null,
    r.campaign?.id ?? null,
    r.campaign?.fingerprint ?? null,
    JSON.stringify(r, (_k, v) => (v === undefined ? null : v)),
  ];
}

export const COLUMNS = [
  'id',
  'owner',
  'fingerprint',
  'outcome',
  'status',
  'created_at',
  'handle',
  'estimate_credits',
  'charged',
  'refunded',
  'platform_estimate',
  'job_key',
  'exclusive_key',
  'campaign_id',
  'campaign_fp',
  'data',
] as const;

/**
 * The job's identity (`jobKey`) as a column, so `getByRef` is an indexed lookup whatever handle spells it.
 * Null while the record has no platform ref (`submission:<id>`: found by ledger id instead).
 */
export function recordJobKey(r: Pick<JobRecord, 'handle' | 'ref'>): string | undefined {
  const ref = recordRef(r);
  return ref && ref.kind !== 'submission' ? jobKeyColumn(ref) : undefined;
}

/** `jobKey` hashed: the key separates its parts with U+0000, which a PostgreSQL text column refuses. */
export function jobKeyColumn(ref: JobRef): string {
  return createHash('sha256').update(jobKey(ref)).digest('hex');
}

/** The exclusive key of an upscale of `videoId`: at most one active attempt per video (not idempotent). */
export function upscaleExclusiveKey(videoId: string): string {
  return `upscale-video:${JSON.stringify(videoId)}`;
}

/**
 * Upscale records written before `exclusiveKey` existed (0.1 imports) still block a second attempt: their
 * video id is the remote id, or for an attempt never answered the summary's `upscale of video "<id>"`.
 */
function legacyExclusiveKey(r: JobRecord): string | undefined {
  if (r.kind !== 'upscale' && r.tool !== 'upscale_video') return undefined;
  if (r.remote?.id) return upscaleExclusiveKey(r.remote.id);
  const m = /^upscale of video ("(?:[^"\\]|\\.)*")/.exec(r.summary);
  if (!m?.[1]) return undefined;
  try {
    return upscaleExclusiveKey(JSON.parse(m[1]) as string);
  } catch {
    return undefined;
  }
}

/** JSON stores `undefined` as null; records never hold null, so every null reads back as undefined. */
export function fromData(data: string): JobRecord {
  const raw = JSON.parse(data) as Record<string, unknown>;
  for (const [k, v] of Object.entries(raw)) if (v === null) raw[k] = undefined;
  return raw as unknown as JobRecord;
}

/**
 * May still start or be running a job: the duplicate guard refuses to submit it again. A `queued` campaign item
 * counts at its quote (a reservation) until it is sent or released. Same rule as
 * `mayStillRun` in `src/jobs/reconcile.ts` (the record-level form; test/store/suite.ts pins them together).
 */
export const ACTIVE_SQL = `(outcome IN ('queued', 'pending', 'unknown') OR (outcome = 'submitted' AND status IN ('submitted', 'processing')))`;

/** `ACTIVE_SQL` of one row in a trigger (`NEW` or `OLD`): the spend triggers' "may still run". */
export const ACTIVE_ROW = (row: 'NEW' | 'OLD') =>
  `(${row}.outcome IN ('queued', 'pending', 'unknown') OR (${row}.outcome = 'submitted' AND ${row}.status IN ('submitted', 'processing')))`;

/**
 * Spend of one record, as one SQL expression (both backends use it; `greatest` is `MAX` in SQLite and
 * `GREATEST` in PostgreSQL; SQLite's MAX is NULL when any argument is, hence the COALESCEs):
 * - while the job may still run, a reported charge is provisional (the upscale status reads 0 while preparing,
 *   though the attempt was charged on acceptance): never below the quote;
 * - once final, the charge the platform reported; when it never reported one, the larger of its own estimate
 *   and our quote (issue 18: the ceilings count a proven figure, and an unbounded quote is the per-call
 *   ceiling, so a job whose charge is never reported is never counted low);
 * - minus refunds, but a refund never makes one job count as negative spend.
 * Which records count at all is `COUNTED_SQL`.
 */
export function spendSql(greatest: 'MAX' | 'GREATEST'): string {
  const est = 'COALESCE(estimate_credits, 0)';
  const pe = 'COALESCE(platform_estimate, 0)';
  const spent = `CASE WHEN ${ACTIVE_SQL} THEN ${greatest}(COALESCE(charged, 0), ${pe}, ${est}) ELSE COALESCE(charged, ${greatest}(${pe}, ${est})) END`;
  return `COALESCE(SUM(${greatest}(0, ${spent} - COALESCE(refunded, 0))), 0)`;
}

/**
 * The records whose spend counts: calls this store admitted (they carry the quote they were admitted with),
 * not rejected ones (nothing was charged). A job followed by id (`get_job {kind, id}`, `track`) has no quote:
 * it was started elsewhere, maybe days ago, and reading it must never put its charge on today's spend (issue 18).
 */
export const COUNTED_SQL = `outcome <> 'rejected' AND estimate_credits IS NOT NULL`;

/** Newest first; `seq` breaks ties of one millisecond. */
export const NEWEST_FIRST = 'ORDER BY created_at DESC, seq DESC';

/**
 * The queries behind `AdmissionFacts`, with `?` placeholders (PostgreSQL renumbers them with `pgPlaceholders`).
 * An undefined owner (stdio) matches records of every owner, as the 0.1 ledger did.
 */
export function factSql(table: string, greatest: 'MAX' | 'GREATEST') {
  const spend = `SELECT ${spendSql(greatest)} AS spent FROM ${table} WHERE ${COUNTED_SQL} AND created_at >= ?`;
  const teams = teamsTable(table);
  // A record without an owner (stdio, a 0.1 import) is everyone's on this account: it blocks a named caller too.
  const anyOwner = '(CAST(? AS TEXT) IS NULL OR owner = ? OR owner IS NULL)';
  return {
    spentToday: spend,
    spentByOwner: `${spend} AND owner = ?`,
    // The records admitted under the team (`job_teams`, written at admission), whoever is in it now.
    spentByTeam: `${spend} AND id IN (SELECT job_id FROM ${teams} WHERE team = ? AND created_at >= ?)`,
    // `campaign_fp`: an active campaign item whose campaign has this fingerprint (a repeated create_campaign).
    duplicate: `SELECT data FROM ${table} WHERE (fingerprint IN (?, ?) OR campaign_fp = ?) AND ${anyOwner} AND ${ACTIVE_SQL} ${NEWEST_FIRST} LIMIT 1`,
    unsettled: `SELECT data FROM ${table} WHERE fingerprint IN (?, ?) AND ${anyOwner} AND outcome IN ('pending', 'unknown') AND id <> ? ${NEWEST_FIRST} LIMIT 1`,
    // Records without platform ids (`submission:` handles: pending or unknown) block only when recent:
    // nothing can ever re-read them (AdmitRules.exclusive).
    exclusive: `SELECT data FROM ${table} WHERE exclusive_key = ? AND ${ACTIVE_SQL} AND (handle NOT LIKE 'submission:%' OR created_at >= ?) ${NEWEST_FIRST} LIMIT 1`,
  } as const;
}

export type FactName = keyof ReturnType<typeof factSql>;

/** The table of (team, record) pairs beside a jobs table (schema 10): `jobs` → `job_teams`. */
export function teamsTable(jobsTable: string): string {
  return jobsTable.replace(/jobs$/, 'job_teams');
}

/** One fact query; `budget`: the index in `rules.budgets` whose spend it reads. */
export interface FactQuery {
  fact: FactName;
  args: (string | number | null)[];
  budget?: number | undefined;
}

/** Which fact queries `rules` needs, with their arguments, in `factSql` order. */
export function factPlan(rules: AdmitRules): FactQuery[] {
  const day = rules.dayStart.getTime();
  const plan: FactQuery[] = [{ fact: 'spentToday', args: [day] }];
  // A person's spend is the sum over each of their ids (one query per id: few, and the same SQL on both stores).
  if (rules.user) for (const id of ownersOf(rules.user)) plan.push({ fact: 'spentByOwner', args: [day, id] });
  for (const [budget, b] of (rules.budgets ?? []).entries()) {
    const since = b.since.getTime();
    if (b.scope === 'account') plan.push({ fact: 'spentToday', args: [since], budget });
    else if (b.scope === 'person')
      for (const id of ownersOf({ owner: b.name, owners: b.owners }))
        plan.push({ fact: 'spentByOwner', args: [since, id], budget });
    else plan.push({ fact: 'spentByTeam', args: [since, b.name ?? null, since], budget });
  }
  // The same request by the same person under another of their ids is a duplicate too (one query per id).
  if (rules.duplicate) {
    const d = rules.duplicate;
    for (const o of ownersOf(d))
      plan.push({ fact: 'duplicate', args: duplicateArgs(d.fingerprint, d.legacyFingerprint, o) });
  }
  if (rules.unsettled) {
    const u = rules.unsettled;
    for (const o of ownersOf(u))
      plan.push({
        fact: 'unsettled',
        args: [u.fingerprint, u.legacyFingerprint ?? u.fingerprint, o, o, u.except ?? ''],
      });
  }
  if (rules.exclusive) plan.push({ fact: 'exclusive', args: exclusiveArgs(rules.exclusive) });
  return plan;
}

/**
 * The owner ids a per-owner fact (spend, duplicate, unsettled) is read for: the person's ids (the people file's
 * `also`), else the one owner (null: stdio, any owner).
 */
function ownersOf(rule: { owner: string | undefined; owners?: readonly string[] | undefined }): (string | null)[] {
  return rule.owners?.length ? [...rule.owners] : [rule.owner ?? null];
}

/** The unsettled fact's arguments (`factSql` order) for one campaign item: no record is excepted. */
export function unsettledArgs(fp: string, owner: string | null): (string | null)[] {
  return [fp, fp, owner, owner, ''];
}

/** The exclusive fact's arguments (`factSql` order): also run once per keyed campaign item by `admitBundle`. */
export function exclusiveArgs(x: { key: string; staleBefore: Date }): (string | number)[] {
  return [x.key, x.staleBefore.getTime()];
}

/** The duplicate fact's arguments (`factSql` order): also run once per campaign item by `admitBundle`. */
export function duplicateArgs(fp: string, legacy: string | undefined, owner: string | null): (string | null)[] {
  return [fp, legacy ?? fp, fp, owner, owner];
}

/** Campaign items, by index (their index is in the JSON; `seq` follows insertion order, which is the index). */
export function bundleItemsSql(table: string): string {
  return `SELECT data FROM ${table} WHERE campaign_id = ? ORDER BY seq`;
}

/** Campaigns with items still `queued`, oldest first. */
export function queuedBundlesSql(table: string): string {
  return `SELECT campaign_id FROM ${table} WHERE outcome = 'queued' AND campaign_id IS NOT NULL GROUP BY campaign_id ORDER BY MIN(seq)`;
}

/** Folds the rows the plan's queries returned (one row or none each) into `AdmissionFacts`. */
export function factsFrom(
  now: Date,
  rows: { fact: FactName; row: Record<string, unknown> | undefined; budget?: number | undefined }[],
): AdmissionFacts {
  const facts: AdmissionFacts = { now, spentToday: 0 };
  for (const { fact, row, budget } of rows) {
    // Spend figures add up: a person's spend is read once per id of theirs (`factPlan`).
    if (budget !== undefined) {
      facts.budgetSpent ??= [];
      facts.budgetSpent[budget] = (facts.budgetSpent[budget] ?? 0) + Number(row?.spent ?? 0);
    } else if (fact === 'spentToday') facts.spentToday = Number(row?.spent ?? 0);
    else if (fact === 'spentByOwner') facts.spentByOwner = (facts.spentByOwner ?? 0) + Number(row?.spent ?? 0);
    // A record fact may be read once per id of a person: the first found stands.
    else if (fact !== 'spentByTeam' && row) facts[fact] ??= fromData(String(row.data));
  }
  return facts;
}

/** The (team, created_at, job id) rows of an admitted record: its teams, fixed at admission. */
export function teamRows(rec: JobRecord): [string, number, string][] {
  return (rec.teams ?? []).map((team) => [team, Date.parse(rec.createdAt), rec.id]);
}

/** One per-item fact query of `admitBundle`: which fact, its arguments, and the item it is for. */
export interface ItemFactQuery {
  fact: 'duplicate' | 'unsettled' | 'exclusive';
  args: (string | number | null)[];
  item: number;
}

/**
 * The per-item facts `admitBundle` reads on top of `factPlan`'s, under the same lock (both stores run this plan
 * as they run `factPlan`'s): each item's identical active job (the duplicate rule) and, with allow_duplicate, its
 * identical pending/unknown one, when the campaign's own fact found none; each keyed item's exclusive holder.
 */
export function itemFactPlan(items: NewJobRecord[], rules: AdmitRules, facts: AdmissionFacts): ItemFactQuery[] {
  const plan: ItemFactQuery[] = [];
  for (const [item, { fingerprint }] of items.entries()) {
    // A single call's one item is the bundle itself: `factPlan` already asked its facts (with its exceptions).
    if (fingerprint === rules.duplicate?.fingerprint || fingerprint === rules.unsettled?.fingerprint) continue;
    if (rules.duplicate && !facts.duplicate) {
      for (const o of ownersOf(rules.duplicate))
        plan.push({ fact: 'duplicate', args: duplicateArgs(fingerprint, undefined, o), item });
    }
    if (rules.unsettled && !facts.unsettled) {
      for (const o of ownersOf(rules.unsettled))
        plan.push({ fact: 'unsettled', args: unsettledArgs(fingerprint, o), item });
    }
    const keyed = rules.itemExclusive?.[item];
    if (keyed) plan.push({ fact: 'exclusive', args: exclusiveArgs(keyed), item });
  }
  return plan;
}

/** Adds what `itemFactPlan`'s queries found to `facts`: the first item's duplicate / unsettled, every holder. */
export function withItemFacts(
  facts: AdmissionFacts,
  rules: AdmitRules,
  found: { query: ItemFactQuery; row: { data: string } | undefined }[],
): AdmissionFacts {
  const itemExclusive = rules.itemExclusive?.map(() => undefined as JobRecord | undefined);
  for (const { query, row } of found) {
    if (!row) continue;
    if (query.fact === 'exclusive') {
      if (itemExclusive) itemExclusive[query.item] = fromData(row.data);
    } else {
      facts[query.fact] ??= fromData(row.data);
    }
  }
  return itemExclusive ? { ...facts, itemExclusive } : facts;
}

/** Nonces are kept as sha256 hex (as the 0.1 `nonces/` files were named), so the import copies them as is. */
export function nonceHash(nonce: string): string {
  return createHash('sha256').update(nonce).digest('hex');
}

export const CONSENT_KEY_BYTES = 32;

/**
 * A used nonce outlives its token by this much before it is pruned. `admit` refuses an expired token on the
 * admitting instance's clock; the grace covers instances whose clocks run up to an hour behind the pruner's,
 * so no instance can find a live-looking token whose nonce row is already gone.
 */
export const NONCE_GRACE_MS = 60 * 60 * 1000;

/** The audit trail's columns after `seq` (both backends; `types.ts` `AuditEvent` says what each holds). */
export const AUDIT_COLUMNS = [
  'at',
  'event',
  'ledger_id',
  'owner',
  'tool',
  'kind',
  'quote_credits',
  'consent',
  'request_id',
  'outcome',
  'status',
  'charged',
  'refunded',
  'platform_estimate',
  'handle',
  'teams',
] as const;

/** The fields whose change a `settle` or `observe` appends to the audit trail (what was sent, said, charged). */
const AUDITED = ['outcome', 'status', 'requestId', 'creditsCharged', 'creditsRefunded', 'platformEstimate', 'handle'];

export function auditChanged(before: JobRecord, after: JobRecord): boolean {
  const b = before as unknown as Record<string, unknown>;
  const a = after as unknown as Record<string, unknown>;
  return AUDITED.some((k) => (b[k] ?? null) !== (a[k] ?? null));
}

/** Column values of one audit row for `rec` as it is now, in `AUDIT_COLUMNS` order. */
export function auditRow(rec: JobRecord, event: AuditEvent['event'], at: Date): (string | number | null)[] {
  return [
    at.getTime(),
    event,
    rec.id,
    rec.owner ?? null,
    rec.tool,
    rec.kind ?? null,
    rec.estimate?.credits ?? null,
    rec.consent ?? null,
    rec.requestId ?? null,
    rec.outcome,
    rec.status,
    rec.creditsCharged ?? null,
    rec.creditsRefunded ?? null,
    rec.platformEstimate ?? null,
    rec.handle,
    rec.teams?.length ? JSON.stringify(rec.teams) : null,
  ];
}

/** A nullable column read back: SQL NULL → undefined (the audit rows of calls and of approvals). */
export const optionalNumber = (v: unknown) => (v === null || v === undefined ? undefined : Number(v));
export const optionalString = (v: unknown) => (v === null || v === undefined ? undefined : String(v));

/** An audit row as read back (column names as in `AUDIT_COLUMNS`, plus `seq`). */
export function fromAuditRow(row: Record<string, unknown>): AuditEvent {
  const num = optionalNumber;
  const str = optionalString;
  return {
    seq: Number(row.seq),
    at: new Date(Number(row.at)).toISOString(),
    event: String(row.event) as AuditEvent['event'],
    ledgerId: String(row.ledger_id),
    owner: str(row.owner),
    tool: String(row.tool),
    kind: str(row.kind),
    quoteCredits: num(row.quote_credits),
    consent: str(row.consent),
    requestId: str(row.request_id),
    outcome: String(row.outcome),
    status: String(row.status),
    charged: num(row.charged),
    refunded: num(row.refunded),
    platformEstimate: num(row.platform_estimate),
    handle: String(row.handle),
    ...(row.teams == null ? {} : { teams: JSON.parse(String(row.teams)) as string[] }),
  };
}

/**
 * Appends a later row only for a paid call, i.e. one whose `admit` row exists: jobs followed by id (`track`)
 * cost nothing here and are not audited. `?`-style placeholders; PostgreSQL renumbers them.
 */
export function auditAppendSql(table: string): string {
  const cols = AUDIT_COLUMNS.join(', ');
  const marks = AUDIT_COLUMNS.map(() => '?').join(', ');
  return `INSERT INTO ${table} (${cols}) SELECT ${marks} WHERE EXISTS (SELECT 1 FROM ${table} WHERE ledger_id = ? AND event = 'admit')`;
}

/** Rows of the calls admitted since / by owner (all of each call's rows), oldest first. */
export function auditSelectSql(table: string, filter: { since: boolean; owner: boolean }): string {
  const admitted = [`event = 'admit'`];
  if (filter.since) admitted.push('at >= ?');
  if (filter.owner) admitted.push('owner = ?');
  const where =
    admitted.length > 1 ? `WHERE ledger_id IN (SELECT ledger_id FROM ${table} WHERE ${admitted.join(' AND ')})` : '';
  return `SELECT seq, ${AUDIT_COLUMNS.join(', ')} FROM ${table} ${where} ORDER BY seq`;
}

/** Renumbers `?` placeholders as `$1…` for pg (our SQL has no `?` inside literals). */
export function pgPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
