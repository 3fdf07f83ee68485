/**
 * The event outbox on SQLite (event-types.ts). `emit` runs inside the caller's transaction (the store's
 * `BEGIN IMMEDIATE`), so an event exists exactly when the change that caused it committed. A lease is one
 * compare-and-set UPDATE, so two processes on one state dir never both hold a delivery.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { EndpointFilter, EventStoreMethods, LeasedDelivery, NewEvent } from './event-types.js';
import {
  attemptArgs,
  doneArgs,
  eventInsertArgs,
  eventSql,
  fromAttemptRow,
  fromDueRow,
  fromEventRow,
  fromSummaryRow,
} from './events-sql.js';

type Row = Record<string, unknown>;
const SQL = eventSql('');

/**
 * Inserts `events` on `db` (inside the caller's transaction); a dedupe key already there is skipped.
 * @returns the events this call wrote (not the skipped ones).
 */
export function sqliteEmit(db: DatabaseSync, events: readonly NewEvent[]): NewEvent[] {
  return events.filter((e) => Number(db.prepare(SQL.insert).run(...eventInsertArgs(e)).changes) > 0);
}

export function sqliteEvents(db: DatabaseSync, tx: <T>(fn: () => T) => T, open: () => void): EventStoreMethods {
  const all = (sql: string, ...args: (string | number | null)[]) => db.prepare(sql).all(...args) as Row[];
  return {
    async events(afterSeq = 0, limit = 1000) {
      open();
      return all(SQL.list, afterSeq, limit).map(fromEventRow);
    },

    async fanOutEvents(endpoints: readonly EndpointFilter[], since: number, afterSeq: number, now: number) {
      return tx(() => {
        let last: { seq: number; at: number } | undefined;
        for (const ep of endpoints) {
          for (const r of all(SQL.unfanned, afterSeq, since, ep.key)) {
            const owner = r.owner == null ? undefined : String(r.owner);
            // Older than the retry window (an endpoint added later): not sent, so a new endpoint is not flooded.
            const state = Number(r.at) >= since && ep.takes({ type: String(r.type), owner }) ? 'due' : 'skipped';
            db.prepare(SQL.fan).run(ep.key, Number(r.seq), String(r.subject), state, now, now);
            if (!last || Number(r.seq) > last.seq) last = { seq: Number(r.seq), at: Number(r.at) };
          }
        }
        return last;
      });
    },

    async leaseDeliveries(endpoint: string, holder: string, now: number, leaseMs: number, limit: number) {
      return tx(() => {
        const out: LeasedDelivery[] = [];
        for (const r of all(SQL.due, endpoint, now, now, limit)) {
          const { changes } = db.prepare(SQL.lease).run(holder, now + leaseMs, endpoint, Number(r.event_seq), now);
          if (Number(changes) === 1) out.push(fromDueRow(r, endpoint));
        }
        return out;
      });
    },

    async recordDelivery(d, holder, o) {
      tx(() => {
        db.prepare(SQL.attempt).run(...attemptArgs(d, holder, o));
        db.prepare(SQL.done).run(...doneArgs(d, holder, o));
      });
    },

    async deliveryLog(limit = 100) {
      open();
      return all(SQL.log, limit).map(fromAttemptRow).reverse();
    },

    async deliverySummary() {
      open();
      return all(SQL.summary).map((r) => {
        const last = all(SQL.lastError, String(r.endpoint))[0];
        return fromSummaryRow(r, last?.error == null ? undefined : String(last.error));
      });
    },
  };
}
