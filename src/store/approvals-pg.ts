/**
 * The approval methods on PostgreSQL (`approval-types.ts`). `decideApproval` locks the approval's row
 * (`SELECT … FOR UPDATE`) as its first read: instances deciding one approval at once are ordered, and the second
 * judges the first one's outcome; the decisions' primary key (approval, person) refuses a second row for one
 * person whatever happens. `expireApprovals` is one UPDATE … RETURNING: an approval expires once, whoever runs it.
 */
import type pg from 'pg';
import type {
  ApprovalAuditEvent,
  ApprovalAuditFilter,
  ApprovalDecided,
  ApprovalDecisionRecord,
  ApprovalEventHooks,
  ApprovalJudge,
  ApprovalJudgement,
  ApprovalRecord,
  ApprovalStoreMethods,
  NewApprovalRecord,
} from './approval-types.js';
import {
  approvalAuditArgs,
  approvalInsertArgs,
  approvalSql,
  auditFilterArgs,
  decisionInsertArgs,
  fromApprovalAuditRow,
  fromApprovalRow,
  fromDecisionRow,
} from './approvals-sql.js';
import { pgPlaceholders } from './record.js';

type Row = Record<string, unknown>;
type Q = Pick<pg.ClientBase, 'query'>;
const RAW = approvalSql('genplat_', ' FOR UPDATE');
const SQL = Object.fromEntries(
  Object.entries(RAW).map(([k, v]) => [k, typeof v === 'string' ? pgPlaceholders(v) : v]),
) as unknown as typeof RAW;

export function pgApprovals(
  tx: <T>(fn: (c: pg.PoolClient) => Promise<T>) => Promise<T>,
  query: <R extends pg.QueryResultRow>(sql: string, args?: unknown[]) => Promise<R[]>,
  events?: (c: Q) => ApprovalEventHooks<Promise<void>>,
): ApprovalStoreMethods {
  const read = async (q: Q, row: Row): Promise<ApprovalRecord> => {
    const { rows } = await q.query<Row>(SQL.decisions, [String(row.id)]);
    return fromApprovalRow(row, rows.map(fromDecisionRow));
  };
  const readPlain = async (row: Row): Promise<ApprovalRecord> =>
    fromApprovalRow(row, (await query<Row>(SQL.decisions, [String(row.id)])).map(fromDecisionRow));

  return {
    createApproval(record: NewApprovalRecord): Promise<ApprovalRecord> {
      return tx(async (c) => {
        await c.query(SQL.insert, approvalInsertArgs(record));
        for (const a of record.approvers) await c.query(SQL.insertApprover, [record.id, a]);
        await c.query(SQL.audit, approvalAuditArgs(record, 'requested', 'pending', record.createdAt));
        await events?.(c).requested(record);
        const { rows } = await c.query<Row>(SQL.byId, [record.id]);
        return read(c, rows[0] as Row);
      });
    },

    async approval(id: string): Promise<ApprovalRecord | undefined> {
      const rows = await query<Row>(SQL.byId, [id]);
      return rows[0] ? readPlain(rows[0]) : undefined;
    },

    decideApproval<V extends ApprovalJudgement>(
      id: string,
      decision: ApprovalDecisionRecord,
      judge: ApprovalJudge<V>,
    ): Promise<ApprovalDecided<V>> {
      return tx(async (c): Promise<ApprovalDecided<V>> => {
        const { rows } = await c.query<Row>(SQL.byIdLocked, [id]);
        if (!rows[0]) return { found: false };
        const before = await read(c, rows[0]);
        const verdict = judge(before, decision, decision.at);
        if (!verdict.ok || !verdict.state) return { found: true, verdict, approval: before, changed: false };
        await c.query(SQL.insertDecision, decisionInsertArgs(id, decision));
        const changed = verdict.state !== before.state;
        if (changed) await c.query(SQL.close, [verdict.state, decision.at, id]);
        if (changed && (verdict.state === 'approved' || verdict.state === 'declined'))
          await events?.(c).decided(before, verdict.state, decision.at, decision.by);
        await c.query(SQL.audit, approvalAuditArgs(before, decision.decision, verdict.state, decision.at, decision));
        const after = await c.query<Row>(SQL.byId, [id]);
        return { found: true, verdict, approval: await read(c, after.rows[0] as Row), changed };
      });
    },

    async approvalsAwaiting(approverId: string, now: Date): Promise<ApprovalRecord[]> {
      const rows = await query<Row>(SQL.awaiting, [approverId, now.getTime()]);
      return Promise.all(rows.map(readPlain));
    },

    expireApprovals(now: Date): Promise<string[]> {
      return tx(async (c) => {
        const { rows } = await c.query<Row>(SQL.expire, [now.getTime(), now.getTime()]);
        for (const r of rows) {
          const a = JSON.parse(String(r.data)) as NewApprovalRecord;
          await c.query(SQL.audit, approvalAuditArgs(a, 'expired', 'expired', now.getTime()));
          await events?.(c).decided(a, 'expired', now.getTime());
        }
        return rows.map((r) => String(r.id));
      });
    },

    async approvalAudit(filter: ApprovalAuditFilter = {}): Promise<ApprovalAuditEvent[]> {
      const rows = await query<Row>(pgPlaceholders(SQL.auditSelect(filter)), auditFilterArgs(filter));
      return rows.map(fromApprovalAuditRow);
    },
  };
}
