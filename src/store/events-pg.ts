/**
 * The event outbox on PostgreSQL (event-types.ts). `pgEmit` runs inside the caller's transaction, after the row
 * lock (`SELECT … FOR UPDATE`) that orders two instances writing one record: the second sees the first one's
 * state, derives no transition, and the unique dedupe key refuses a copy whatever happens. A lease is one
 * compare-and-set UPDATE per delivery: one instance of the fleet holds a given delivery at a time.
 */
import type pg from 'pg';
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
import { pgPlaceholders } from './record.js';

type Row = Record<string, unknown>;
type Q = Pick<pg.ClientBase, 'query'>;
const RAW = eventSql('genplat_');
const SQL = Object.fromEntries(Object.entries(RAW).map(([k, v]) => [k, pgPlaceholders(v)])) as typeof RAW;

/**
 * Inserts `events` inside the caller's transaction; a dedupe key already there is skipped.
 * @returns the events this call wrote (not the skipped ones).
 */
export async function pgEmit(c: Q, events: readonly NewEvent[]): Promise<NewEvent[]> {
  const written: NewEvent[] = [];
  for (const e of events) if (((await c.query(SQL.insert, eventInsertArgs(e))).rowCount ?? 0) > 0) written.push(e);
  return written;
}

/**
 * Serializes the transitions of one campaign across the fleet for the rest of the transaction: its progress is
 * counted from every item under this lock, so counts grow one by one and commit in event order.
 */
export async function pgLockSubject(c: Q, subject: string): Promise<void> {
  await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [subject]);
}

export function pgEvents(
  tx: <T>(fn: (c: pg.PoolClient) => Promise<T>) => Promise<T>,
  query: <R extends pg.QueryResultRow>(sql: string, args?: unknown[]) => Promise<R[]>,
): EventStoreMethods {
  return {
    async events(afterSeq = 0, limit = 1000) {
      return (await query<Row>(SQL.list, [afterSeq, limit])).map(fromEventRow);
    },

    fanOutEvents(endpoints: readonly EndpointFilter[], since: number, afterSeq: number, now: number) {
      return tx(async (c) => {
        let last: { seq: number; at: number } | undefined;
        for (const ep of endpoints) {
          const { rows } = await c.query<Row>(SQL.unfanned, [afterSeq, since, ep.key]);
          for (const r of rows) {
            const owner = r.owner == null ? undefined : String(r.owner);
            // Older than the retry window (an endpoint added later): not sent, so a new endpoint is not flooded.
            const state = Number(r.at) >= since && ep.takes({ type: String(r.type), owner }) ? 'due' : 'skipped';
            await c.query(SQL.fan, [ep.key, Number(r.seq), String(r.subject), state, now, now]);
            if (!last || Number(r.seq) > last.seq) last = { seq: Number(r.seq), at: Number(r.at) };
          }
        }
        return last;
      });
    },

    leaseDeliveries(endpoint: string, holder: string, now: number, leaseMs: number, limit: number) {
      return tx(async (c) => {
        const out: LeasedDelivery[] = [];
        const { rows } = await c.query<Row>(SQL.due, [endpoint, now, now, limit]);
        for (const r of rows) {
          const res = await c.query(SQL.lease, [holder, now + leaseMs, endpoint, Number(r.event_seq), now]);
          if (res.rowCount === 1) out.push(fromDueRow(r, endpoint));
        }
        return out;
      });
    },

    async recordDelivery(d, holder, o) {
      await tx(async (c) => {
        await c.query(SQL.attempt, attemptArgs(d, holder, o));
        await c.query(SQL.done, doneArgs(d, holder, o));
      });
    },

    async deliveryLog(limit = 100) {
      return (await query<Row>(SQL.log, [limit])).map(fromAttemptRow).reverse();
    },

    async deliverySummary() {
      const rows = await query<Row>(SQL.summary);
      const out = [];
      for (const r of rows) {
        const last = (await query<Row>(SQL.lastError, [String(r.endpoint)]))[0];
        out.push(fromSummaryRow(r, last?.error == null ? undefined : String(last.error)));
      }
      return out;
    },
  };
}
