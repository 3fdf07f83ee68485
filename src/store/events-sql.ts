/**
 * The event outbox's statements, migration and row mappings, shared by both backends (event-types.ts says what
 * is kept). `?` placeholders; PostgreSQL renumbers them (`pgPlaceholders`). Table names take the backend's
 * prefix (`genplat_` on PostgreSQL, none on SQLite).
 */
import type {
  DeliveryAttempt,
  DeliveryOutcome,
  DeliverySummary,
  LeasedDelivery,
  NewEvent,
  StoredEvent,
} from './event-types.js';
import { optionalNumber, optionalString } from './record.js';

export function eventTables(prefix: string) {
  return {
    events: `${prefix}events`,
    deliveries: `${prefix}event_deliveries`,
    attempts: `${prefix}event_attempts`,
  };
}

/** Fan-out candidates per call: enough for a burst, small enough for one short transaction. */
export const FAN_OUT_BATCH = 500;

export function eventSql(prefix: string) {
  const t = eventTables(prefix);
  return {
    insert: `INSERT INTO ${t.events} (id, dedupe, subject, type, owner, at, body) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dedupe) DO NOTHING`,
    list: `SELECT seq, id, dedupe, subject, type, owner, at, body FROM ${t.events} WHERE seq > ? ORDER BY seq LIMIT ?`,
    /**
     * Events above `afterSeq` not yet fanned out to `endpoint` (the anti-join), bounded to the retry window (older
     * ones would be `skipped`: leaving them out keeps each round's scan to the window).
     */
    unfanned: `SELECT e.seq, e.type, e.owner, e.subject, e.at FROM ${t.events} e
      WHERE e.seq > ? AND e.at >= ? AND NOT EXISTS (SELECT 1 FROM ${t.deliveries} d WHERE d.endpoint = ? AND d.event_seq = e.seq)
      ORDER BY e.seq LIMIT ${FAN_OUT_BATCH}`,
    fan: `INSERT INTO ${t.deliveries} (endpoint, event_seq, subject, state, attempts, next_at, created_at)
      VALUES (?, ?, ?, ?, 0, ?, ?) ON CONFLICT (endpoint, event_seq) DO NOTHING`,
    /** Due, unleased, and no earlier undelivered event of the same subject to this endpoint (order per subject). */
    due: `SELECT d.event_seq, d.attempts, d.created_at, e.id, e.body FROM ${t.deliveries} d JOIN ${t.events} e ON e.seq = d.event_seq
      WHERE d.endpoint = ? AND d.state = 'due' AND d.next_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)
        AND NOT EXISTS (SELECT 1 FROM ${t.deliveries} p WHERE p.endpoint = d.endpoint AND p.subject = d.subject
          AND p.state = 'due' AND p.event_seq < d.event_seq)
      ORDER BY d.event_seq LIMIT ?`,
    lease: `UPDATE ${t.deliveries} SET lease_holder = ?, lease_until = ?
      WHERE endpoint = ? AND event_seq = ? AND state = 'due' AND (lease_until IS NULL OR lease_until <= ?)`,
    done: `UPDATE ${t.deliveries} SET state = ?, attempts = attempts + 1, next_at = ?, lease_until = NULL, last_error = ?, done_at = ?
      WHERE endpoint = ? AND event_seq = ? AND state = 'due' AND lease_holder = ?`,
    attempt: `INSERT INTO ${t.attempts} (at, event_id, type, endpoint, status, error, ms, holder) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    log: `SELECT seq, at, event_id, type, endpoint, status, error, ms, holder FROM ${t.attempts} ORDER BY seq DESC LIMIT ?`,
    summary: `SELECT endpoint,
        SUM(CASE WHEN state = 'due' THEN 1 ELSE 0 END) AS due,
        SUM(CASE WHEN state = 'delivered' THEN 1 ELSE 0 END) AS delivered,
        SUM(CASE WHEN state = 'dead' THEN 1 ELSE 0 END) AS dead,
        MIN(CASE WHEN state = 'due' THEN created_at END) AS oldest_due
      FROM ${t.deliveries} GROUP BY endpoint ORDER BY endpoint`,
    lastError: `SELECT error FROM ${t.attempts} WHERE endpoint = ? AND error IS NOT NULL ORDER BY seq DESC LIMIT 1`,
  };
}

export function eventInsertArgs(e: NewEvent): (string | number | null)[] {
  return [e.id, e.dedupe, e.subject, e.type, e.owner ?? null, e.at, JSON.stringify(e.body)];
}

export function fromEventRow(r: Record<string, unknown>): StoredEvent {
  return {
    seq: Number(r.seq),
    id: String(r.id),
    dedupe: String(r.dedupe),
    subject: String(r.subject),
    type: String(r.type) as StoredEvent['type'],
    owner: optionalString(r.owner),
    at: Number(r.at),
    body: JSON.parse(String(r.body)) as StoredEvent['body'],
  };
}

export function fromDueRow(r: Record<string, unknown>, endpoint: string): LeasedDelivery {
  return {
    eventSeq: Number(r.event_seq),
    eventId: String(r.id),
    endpoint,
    payload: String(r.body),
    attempts: Number(r.attempts),
    createdAt: Number(r.created_at),
  };
}

export function fromAttemptRow(r: Record<string, unknown>): DeliveryAttempt {
  return {
    seq: Number(r.seq),
    at: new Date(Number(r.at)).toISOString(),
    eventId: String(r.event_id),
    type: String(r.type),
    endpoint: String(r.endpoint),
    status: optionalNumber(r.status),
    error: optionalString(r.error),
    ms: Number(r.ms),
    holder: String(r.holder),
  };
}

export function fromSummaryRow(r: Record<string, unknown>, lastError: string | undefined): DeliverySummary {
  return {
    endpoint: String(r.endpoint),
    due: Number(r.due ?? 0),
    delivered: Number(r.delivered ?? 0),
    dead: Number(r.dead ?? 0),
    oldestDue: optionalNumber(r.oldest_due),
    lastError,
  };
}

/** The migration step's tables, for either backend. Attempts are append-only (`appendOnly`'s triggers). */
export function eventMigration(
  prefix: string,
  types: { serial: string; int: string },
  appendOnly: (table: string) => string[],
): string[] {
  const t = eventTables(prefix);
  return [
    `CREATE TABLE ${t.events} (
      seq ${types.serial},
      id TEXT NOT NULL UNIQUE,
      dedupe TEXT NOT NULL UNIQUE,
      subject TEXT NOT NULL,
      type TEXT NOT NULL,
      owner TEXT,
      at ${types.int} NOT NULL,
      body TEXT NOT NULL
    )`,
    `CREATE INDEX ${t.events}_at ON ${t.events} (at)`,
    `CREATE TABLE ${t.deliveries} (
      endpoint TEXT NOT NULL,
      event_seq ${types.int} NOT NULL,
      subject TEXT NOT NULL,
      state TEXT NOT NULL,
      attempts INTEGER NOT NULL,
      next_at ${types.int} NOT NULL,
      created_at ${types.int} NOT NULL,
      lease_holder TEXT,
      lease_until ${types.int},
      last_error TEXT,
      done_at ${types.int},
      PRIMARY KEY (endpoint, event_seq)
    )`,
    `CREATE INDEX ${t.deliveries}_due ON ${t.deliveries} (endpoint, state, next_at)`,
    `CREATE INDEX ${t.deliveries}_subject ON ${t.deliveries} (endpoint, subject, state, event_seq)`,
    `CREATE TABLE ${t.attempts} (
      seq ${types.serial},
      at ${types.int} NOT NULL,
      event_id TEXT NOT NULL,
      type TEXT NOT NULL,
      endpoint TEXT NOT NULL,
      status INTEGER,
      error TEXT,
      ms INTEGER NOT NULL,
      holder TEXT NOT NULL
    )`,
    ...appendOnly(t.attempts),
  ];
}

const typeOf = (payload: string) => String((JSON.parse(payload) as { type?: unknown }).type ?? '');

/** `SQL.attempt`'s arguments: one log row per POST (or per delivery skipped at sending). */
export function attemptArgs(d: LeasedDelivery, holder: string, o: DeliveryOutcome): (string | number | null)[] {
  return [o.at, d.eventId, typeOf(d.payload), d.endpoint, o.status ?? null, o.error ?? null, o.ms, holder];
}

/** `SQL.done`'s arguments: the delivery row's new state (skipped, delivered, dead, or due again at `nextAt`). */
export function doneArgs(d: LeasedDelivery, holder: string, o: DeliveryOutcome): (string | number | null)[] {
  const state = o.skipped ? 'skipped' : o.ok ? 'delivered' : o.nextAt === undefined ? 'dead' : 'due';
  return [state, o.nextAt ?? o.at, o.error ?? null, o.ok ? o.at : null, d.endpoint, d.eventSeq, holder];
}
