/**
 * The approval tables' statements and row mappings, shared by both backends (`approval-types.ts` says what is
 * kept). `?` placeholders; PostgreSQL renumbers them (`pgPlaceholders`). Table names take the backend's prefix
 * (`genplat_` on PostgreSQL, none on SQLite).
 */

import type {
  ApprovalAuditEvent,
  ApprovalAuditFilter,
  ApprovalDecisionRecord,
  ApprovalRecord,
  ApprovalState,
  NewApprovalRecord,
} from './approval-types.js';
import { optionalNumber, optionalString } from './record.js';

export function approvalTables(prefix: string) {
  return {
    approvals: `${prefix}approvals`,
    approvers: `${prefix}approval_approvers`,
    decisions: `${prefix}approval_decisions`,
    audit: `${prefix}approval_audit`,
  };
}

const AUDIT_COLUMNS = [
  'at',
  'event',
  'approval_id',
  'requester',
  'requester_name',
  'tool',
  'approver',
  'approver_name',
  'carrier',
  'rules',
  'campaign_id',
  'quote_credits',
  'state',
] as const;

/** Every statement, for one backend's table names; `lock` is appended to the read that decides (PostgreSQL). */
export function approvalSql(prefix: string, lock = '') {
  const t = approvalTables(prefix);
  return {
    insert: `INSERT INTO ${t.approvals} (id, requester, tool, state, created_at, expires_at, campaign_id, data) VALUES (?, ?, ?, 'pending', ?, ?, ?, ?)`,
    insertApprover: `INSERT INTO ${t.approvers} (approval_id, approver) VALUES (?, ?) ON CONFLICT DO NOTHING`,
    byId: `SELECT id, state, closed_at, data FROM ${t.approvals} WHERE id = ?`,
    byIdLocked: `SELECT id, state, closed_at, data FROM ${t.approvals} WHERE id = ?${lock}`,
    decisions: `SELECT decider, name, decision, carrier, at, reason FROM ${t.decisions} WHERE approval_id = ? ORDER BY at, decider`,
    insertDecision: `INSERT INTO ${t.decisions} (approval_id, decider, name, decision, carrier, at, reason) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    close: `UPDATE ${t.approvals} SET state = ?, closed_at = ? WHERE id = ? AND state = 'pending'`,
    awaiting: `SELECT a.id, a.state, a.closed_at, a.data FROM ${t.approvals} a JOIN ${t.approvers} p ON p.approval_id = a.id
      WHERE p.approver = ? AND a.state = 'pending' AND a.expires_at > ? ORDER BY a.created_at, a.id`,
    expire: `UPDATE ${t.approvals} SET state = 'expired', closed_at = ? WHERE state = 'pending' AND expires_at <= ? RETURNING id, data`,
    audit: `INSERT INTO ${t.audit} (${AUDIT_COLUMNS.join(', ')}) VALUES (${AUDIT_COLUMNS.map(() => '?').join(', ')})`,
    auditSelect(filter: ApprovalAuditFilter): string {
      const where: string[] = [];
      if (filter.since) where.push('created_at >= ?');
      if (filter.requester !== undefined) where.push('requester = ?');
      const sel = where.length
        ? `WHERE approval_id IN (SELECT id FROM ${t.approvals} WHERE ${where.join(' AND ')})`
        : '';
      return `SELECT seq, ${AUDIT_COLUMNS.join(', ')} FROM ${t.audit} ${sel} ORDER BY seq`;
    },
  };
}

export function auditFilterArgs(filter: ApprovalAuditFilter): (string | number)[] {
  const args: (string | number)[] = [];
  if (filter.since) args.push(filter.since.getTime());
  if (filter.requester !== undefined) args.push(filter.requester);
  return args;
}

/** Column values of `insert`. The whole record (the opaque request included) is the JSON `data`. */
export function approvalInsertArgs(r: NewApprovalRecord): (string | number | null)[] {
  const data: NewApprovalRecord = {
    id: r.id,
    requester: r.requester,
    requesterName: r.requesterName,
    tool: r.tool,
    request: r.request,
    requirements: r.requirements.map((q) => ({ rule: q.rule, approvers: [...q.approvers], required: q.required })),
    approvers: [...r.approvers],
    rules: [...r.rules],
    campaignId: r.campaignId,
    quoteCredits: r.quoteCredits,
    createdAt: r.createdAt,
    expiresAt: r.expiresAt,
  };
  return [r.id, r.requester, r.tool, r.createdAt, r.expiresAt, r.campaignId ?? null, JSON.stringify(data)];
}

export function decisionInsertArgs(id: string, d: ApprovalDecisionRecord): (string | number | null)[] {
  return [id, d.by, d.name ?? null, d.decision, d.carrier, d.at, d.reason ?? null];
}

const str = optionalString;

export function fromDecisionRow(row: Record<string, unknown>): ApprovalDecisionRecord {
  return {
    by: String(row.decider),
    ...(row.name != null ? { name: String(row.name) } : {}),
    decision: row.decision === 'approve' ? 'approve' : 'decline',
    carrier: String(row.carrier) as ApprovalDecisionRecord['carrier'],
    at: Number(row.at),
    ...(row.reason != null ? { reason: String(row.reason) } : {}),
  };
}

export function fromApprovalRow(row: Record<string, unknown>, decisions: ApprovalDecisionRecord[]): ApprovalRecord {
  const data = JSON.parse(String(row.data)) as NewApprovalRecord;
  return {
    ...data,
    state: String(row.state) as ApprovalState,
    decisions,
    ...(row.closed_at != null ? { closedAt: Number(row.closed_at) } : {}),
  };
}

/** One audit row about `a` (state = its state after the event). */
export function approvalAuditArgs(
  a: NewApprovalRecord,
  event: ApprovalAuditEvent['event'],
  state: ApprovalState,
  at: number,
  decision?: ApprovalDecisionRecord,
): (string | number | null)[] {
  return [
    at,
    event,
    a.id,
    a.requester,
    a.requesterName ?? null,
    a.tool,
    decision?.by ?? null,
    decision?.name ?? null,
    decision?.carrier ?? null,
    JSON.stringify(a.rules),
    a.campaignId ?? null,
    a.quoteCredits ?? null,
    state,
  ];
}

export function fromApprovalAuditRow(row: Record<string, unknown>): ApprovalAuditEvent {
  const num = optionalNumber;
  return {
    seq: Number(row.seq),
    at: new Date(Number(row.at)).toISOString(),
    event: String(row.event) as ApprovalAuditEvent['event'],
    approvalId: String(row.approval_id),
    requester: String(row.requester),
    requesterName: str(row.requester_name),
    tool: String(row.tool),
    approver: str(row.approver),
    approverName: str(row.approver_name),
    carrier: str(row.carrier) as ApprovalAuditEvent['carrier'],
    rules: JSON.parse(String(row.rules ?? '[]')) as string[],
    campaignId: str(row.campaign_id),
    quoteCredits: num(row.quote_credits),
    state: String(row.state) as ApprovalState,
  };
}

/** The migration step's tables, for either backend (`serial`: the audit's auto-increment key; `real`, `int`). */
export function approvalMigration(
  prefix: string,
  types: { serial: string; int: string; real: string },
  appendOnly: (table: string) => string[],
): string[] {
  const t = approvalTables(prefix);
  return [
    `CREATE TABLE ${t.approvals} (
      id TEXT PRIMARY KEY,
      requester TEXT NOT NULL,
      tool TEXT NOT NULL,
      state TEXT NOT NULL,
      created_at ${types.int} NOT NULL,
      expires_at ${types.int} NOT NULL,
      closed_at ${types.int},
      campaign_id TEXT,
      data TEXT NOT NULL
    )`,
    `CREATE INDEX ${t.approvals}_pending ON ${t.approvals} (state, expires_at)`,
    `CREATE INDEX ${t.approvals}_created ON ${t.approvals} (created_at)`,
    `CREATE TABLE ${t.approvers} (approval_id TEXT NOT NULL, approver TEXT NOT NULL, PRIMARY KEY (approver, approval_id))`,
    `CREATE TABLE ${t.decisions} (
      approval_id TEXT NOT NULL,
      decider TEXT NOT NULL,
      name TEXT,
      decision TEXT NOT NULL,
      carrier TEXT NOT NULL,
      at ${types.int} NOT NULL,
      reason TEXT,
      PRIMARY KEY (approval_id, decider)
    )`,
    `CREATE TABLE ${t.audit} (
      seq ${types.serial},
      at ${types.int} NOT NULL,
      event TEXT NOT NULL,
      approval_id TEXT NOT NULL,
      requester TEXT NOT NULL,
      requester_name TEXT,
      tool TEXT NOT NULL,
      approver TEXT,
      approver_name TEXT,
      carrier TEXT,
      rules TEXT NOT NULL,
      campaign_id TEXT,
      quote_credits ${types.real},
      state TEXT NOT NULL
    )`,
    `CREATE INDEX ${t.audit}_approval ON ${t.audit} (approval_id)`,
    ...appendOnly(t.decisions),
    ...appendOnly(t.audit),
  ];
}
