/**
 * The approval methods on SQLite (`approval-types.ts`). `decideApproval` runs in `BEGIN IMMEDIATE` (the store's
 * `tx`): the write lock is taken before the approval is read, so two processes on one state dir decide one after
 * the other, and the second judges the first one's outcome. Synchronous inside the transaction, like `admit`.
 */
import type { DatabaseSync } from 'node:sqlite';
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

type Row = Record<string, unknown>;
const SQL = approvalSql('');

export function sqliteApprovals(
  db: DatabaseSync,
  tx: <T>(fn: () => T) => T,
  open: () => void,
  events?: ApprovalEventHooks,
): ApprovalStoreMethods {
  const get = (sql: string, ...args: (string | number | null)[]) => db.prepare(sql).get(...args) as Row | undefined;
  const all = (sql: string, ...args: (string | number | null)[]) => db.prepare(sql).all(...args) as Row[];
  const read = (row: Row): ApprovalRecord =>
    fromApprovalRow(
      row,
      all(SQL.decisions, String(row.id)).map((d) => fromDecisionRow(d)),
    );

  return {
    async createApproval(record: NewApprovalRecord): Promise<ApprovalRecord> {
      return tx(() => {
        db.prepare(SQL.insert).run(...approvalInsertArgs(record));
        for (const a of record.approvers) db.prepare(SQL.insertApprover).run(record.id, a);
        db.prepare(SQL.audit).run(...approvalAuditArgs(record, 'requested', 'pending', record.createdAt));
        events?.requested(record);
        return read(get(SQL.byId, record.id) as Row);
      });
    },

    async approval(id: string): Promise<ApprovalRecord | undefined> {
      open();
      const row = get(SQL.byId, id);
      return row ? read(row) : undefined;
    },

    async decideApproval<V extends ApprovalJudgement>(
      id: string,
      decision: ApprovalDecisionRecord,
      judge: ApprovalJudge<V>,
    ): Promise<ApprovalDecided<V>> {
      return tx((): ApprovalDecided<V> => {
        const row = get(SQL.byIdLocked, id);
        if (!row) return { found: false };
        const before = read(row);
        const verdict = judge(before, decision, decision.at);
        if (!verdict.ok || !verdict.state) return { found: true, verdict, approval: before, changed: false };
        db.prepare(SQL.insertDecision).run(...decisionInsertArgs(id, decision));
        const changed = verdict.state !== before.state;
        if (changed) db.prepare(SQL.close).run(verdict.state, decision.at, id);
        if (changed && (verdict.state === 'approved' || verdict.state === 'declined'))
          events?.decided(before, verdict.state, decision.at, decision.by);
        db.prepare(SQL.audit).run(
          ...approvalAuditArgs(before, decision.decision, verdict.state, decision.at, decision),
        );
        return { found: true, verdict, approval: read(get(SQL.byId, id) as Row), changed };
      });
    },

    async approvalsAwaiting(approverId: string, now: Date): Promise<ApprovalRecord[]> {
      open();
      return all(SQL.awaiting, approverId, now.getTime()).map(read);
    },

    async expireApprovals(now: Date): Promise<string[]> {
      return tx(() => {
        const rows = all(SQL.expire, now.getTime(), now.getTime());
        for (const r of rows) {
          const a = JSON.parse(String(r.data)) as NewApprovalRecord;
          db.prepare(SQL.audit).run(...approvalAuditArgs(a, 'expired', 'expired', now.getTime()));
          events?.decided(a, 'expired', now.getTime());
        }
        return rows.map((r) => String(r.id));
      });
    },

    async approvalAudit(filter: ApprovalAuditFilter = {}): Promise<ApprovalAuditEvent[]> {
      open();
      return all(SQL.auditSelect(filter), ...auditFilterArgs(filter)).map(fromApprovalAuditRow);
    },
  };
}
