/**
 * The audit export (`genplat-mcp audit export`): one line per paid call, folded from its append-only rows
 * (`AuditEvent`): who and when from the `admit` row, the rest from the newest row; and one line per approval
 * event (issue 28 item 8: requested, approve, decline, expired), naming the requester, the approver, the
 * carrier, the rules and the campaign. CSV (RFC 4180) or JSON lines, in time order. Only the fields below leave
 * the store: no token, key, request body or prompt text is ever in them; people's names and e-mails come from the
 * people file at export time where the store holds none (issue 28 item 8).
 */
import { countedCredits } from '../jobs/reconcile.js';
import { NO_PEOPLE, type PeopleDirectory } from '../people/people-file.js';
import { personEntry } from '../people/same-person.js';
import type { ApprovalAuditEvent } from '../store/approval-types.js';
import type { AuditEvent } from '../store/types.js';

/** The columns, in order (CSV header = these names; JSONL keys = these names). */
export const AUDIT_FIELDS = [
  'ledger_id',
  'admitted_at',
  'owner',
  'owner_name',
  'owner_email',
  'tool',
  'kind',
  'quote_credits',
  'consent',
  'request_id',
  'outcome',
  'status',
  'charged_credits',
  'refunded_credits',
  'platform_estimate_credits',
  'counted_credits',
  'handle',
  'updated_at',
  'events',
  // Approval rows (issue 28); empty on a call's row. `record`: `call` or `approval`.
  'record',
  'approval',
  'approval_event',
  'requester_name',
  'approver',
  'approver_name',
  'carrier',
  'rules',
  'campaign_id',
] as const;

const NO_APPROVAL = {
  record: 'call',
  approval: null,
  approval_event: null,
  requester_name: null,
  approver: null,
  approver_name: null,
  carrier: null,
  rules: null,
  campaign_id: null,
} as const;

export type AuditCallRow = Record<(typeof AUDIT_FIELDS)[number], string | number | null>;

/**
 * One row per call (in admission order); a call without its `admit` row (never written so) is skipped. `people`
 * (the people file, `GENPLAT_PEOPLE`) names the owner ids: `owner_name` / `owner_email` (empty when not listed).
 */
export function foldAudit(events: readonly AuditEvent[], people: PeopleDirectory = NO_PEOPLE): AuditCallRow[] {
  const calls = new Map<string, { admit: AuditEvent; last: AuditEvent; count: number }>();
  for (const e of events) {
    const c = calls.get(e.ledgerId);
    if (e.event === 'admit') calls.set(e.ledgerId, { admit: e, last: e, count: 1 });
    else if (c && e.seq > c.last.seq) Object.assign(c, { last: e, count: c.count + 1 });
  }
  return [...calls.values()]
    .sort((a, b) => a.admit.seq - b.admit.seq)
    .map(({ admit, last, count }) => ({
      ledger_id: admit.ledgerId,
      admitted_at: admit.at,
      owner: admit.owner ?? null,
      owner_name: (admit.owner && personEntry(people, admit.owner)?.name) || null,
      owner_email: (admit.owner && personEntry(people, admit.owner)?.email) || null,
      tool: admit.tool,
      kind: last.kind ?? null,
      quote_credits: admit.quoteCredits ?? null,
      consent: admit.consent ?? null,
      request_id: last.requestId ?? null,
      outcome: last.outcome,
      status: last.status,
      charged_credits: last.charged ?? null,
      refunded_credits: last.refunded ?? null,
      platform_estimate_credits: last.platformEstimate ?? null,
      // What the call counts toward the day's ceilings now (the store's spend rule, reconcile.ts).
      counted_credits: countedCredits({
        estimate:
          admit.quoteCredits === undefined
            ? undefined
            : { credits: admit.quoteCredits, api_units: 0, basis: '', bounded: true },
        creditsCharged: last.charged,
        creditsRefunded: last.refunded,
        platformEstimate: last.platformEstimate,
        outcome: last.outcome as never,
        status: last.status as never,
      }),
      handle: last.handle,
      updated_at: last.at,
      events: count,
      ...NO_APPROVAL,
    }));
}

/**
 * Call rows the people file does not name take the name and e-mail the request itself knew at admission (OAuth
 * claims, the name a delegating bot gave: `JobRecord.ownerName`), read from each call's record.
 */
export async function withRecordedNames(
  rows: AuditCallRow[],
  recordOf: (
    ledgerId: string,
  ) => Promise<{ ownerName?: string | undefined; ownerEmail?: string | undefined } | undefined>,
): Promise<AuditCallRow[]> {
  for (const row of rows) {
    if (row.owner_name !== null || typeof row.ledger_id !== 'string') continue;
    const rec = await recordOf(row.ledger_id);
    row.owner_name = rec?.ownerName ?? null;
    if (row.owner_email === null) row.owner_email = rec?.ownerEmail ?? null;
  }
  return rows;
}

/**
 * One row per approval event: `owner` is the requester, `status` the approval's state after the event,
 * `updated_at` its time, `handle` the approval's (`approval:<id>`); the call's own columns stay empty (the call
 * sent once approved has its own row).
 */
export function approvalAuditRows(
  events: readonly ApprovalAuditEvent[],
  people: PeopleDirectory = NO_PEOPLE,
): AuditCallRow[] {
  const nameOf = (id: string | undefined) => (id && personEntry(people, id)?.name) || null;
  return events.map((e) => ({
    ledger_id: null,
    admitted_at: null,
    owner: e.requester,
    owner_name: nameOf(e.requester) ?? e.requesterName ?? null,
    owner_email: personEntry(people, e.requester)?.email ?? null,
    tool: e.tool,
    kind: null,
    quote_credits: e.quoteCredits ?? null,
    consent: null,
    request_id: null,
    outcome: null,
    status: e.state,
    charged_credits: null,
    refunded_credits: null,
    platform_estimate_credits: null,
    counted_credits: null,
    handle: `approval:${e.approvalId}`,
    updated_at: e.at,
    events: null,
    record: 'approval',
    approval: e.approvalId,
    approval_event: e.event,
    requester_name: nameOf(e.requester) ?? e.requesterName ?? null,
    approver: e.approver ?? null,
    approver_name: nameOf(e.approver) ?? e.approverName ?? null,
    carrier: e.carrier ?? null,
    rules: e.rules.join('; '),
    campaign_id: e.campaignId ?? null,
  }));
}

/** Calls (at admission) and approval events (at their time) in one time order; ties keep calls first. */
export function mergeAuditRows(calls: readonly AuditCallRow[], approvals: readonly AuditCallRow[]): AuditCallRow[] {
  const when = (r: AuditCallRow) => String(r.record === 'call' ? r.admitted_at : r.updated_at);
  return [...calls, ...approvals].sort((a, b) => (when(a) < when(b) ? -1 : when(a) > when(b) ? 1 : 0));
}

export function toJsonl(rows: readonly AuditCallRow[]): string {
  return rows.map((r) => `${JSON.stringify(r)}\n`).join('');
}

/**
 * RFC 4180 (CRLF, fields quoted when they hold a comma, quote or line break). A text field starting with
 * `= + - @` or a control character gets a leading `'`, so a spreadsheet never runs a caller id as a formula
 * (OWASP "CSV injection"); numbers are written as numbers.
 */
export function toCsv(rows: readonly AuditCallRow[]): string {
  const lines = [AUDIT_FIELDS.join(','), ...rows.map((r) => AUDIT_FIELDS.map((f) => csvCell(r[f])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}

/** One CSV cell as `toCsv` writes it (also the spend report's, src/report/format.ts). */
export function csvCell(v: string | number | null): string {
  if (v === null) return '';
  if (typeof v === 'number') return String(v);
  // Also after every `;`: a spreadsheet that splits on `;` (common in Europe) would start a cell there (review 4).
  const text = (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v).replace(/;(?=[=+\-@\t\r])/g, ";'");
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
