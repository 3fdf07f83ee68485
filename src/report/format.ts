/**
 * The spend report for a terminal (`genplat-mcp report`): an aligned table, or CSV with the audit export's cell
 * rules (RFC 4180, no formula can start a cell). The last line is the total; by team, a note says why the team
 * rows can add up to more.
 */
import { csvCell } from '../audit/export.js';
import { type ReportFigures, type SpendReport, TEAM_NOTE } from './spend-report.js';

/** CSV columns, in order (the resource's JSON row keys). */
export const REPORT_FIELDS = [
  'key',
  'label',
  'calls',
  'quoted_credits',
  'charged_credits',
  'refunded_credits',
  'counted_credits',
] as const;

/** The key of the total line in CSV and in the table. */
export const TOTAL_KEY = '(total)';

type Line = Record<(typeof REPORT_FIELDS)[number], string | number>;

function lines(report: SpendReport): Line[] {
  const total: Line = { key: TOTAL_KEY, label: TOTAL_KEY, ...(report.total as ReportFigures) };
  return [...report.rows, total];
}

export function reportCsv(report: SpendReport): string {
  const out = [REPORT_FIELDS.join(','), ...lines(report).map((l) => REPORT_FIELDS.map((f) => csvCell(l[f])).join(','))];
  return `${out.join('\r\n')}\r\n`;
}

const HEADINGS: Record<(typeof REPORT_FIELDS)[number], string> = {
  key: '',
  label: '',
  calls: 'calls',
  quoted_credits: 'quoted',
  charged_credits: 'charged',
  refunded_credits: 'refunded',
  counted_credits: 'counted',
};

/** Columns padded to their widest cell; figures right-aligned. People are shown by name, the key in brackets. */
export function reportTable(report: SpendReport): string {
  const cols = REPORT_FIELDS.slice(2);
  const first = (l: Line) => (l.label !== l.key ? `${l.label} (${l.key})` : String(l.key));
  const body = lines(report).map((l) => [first(l), ...cols.map((c) => String(l[c]))]);
  const head = [report.by, ...cols.map((c) => HEADINGS[c])];
  const all = [head, ...body];
  const width = head.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const fmt = (r: string[]) =>
    r
      .map((cell, i) => (i === 0 ? cell.padEnd(width[i]!) : cell.padStart(width[i]!)))
      .join('  ')
      .trimEnd();
  const rule = width.map((w) => '-'.repeat(w)).join('  ');
  const rows = body.map(fmt);
  const text = [fmt(head), rule, ...rows.slice(0, -1), rule, rows[rows.length - 1]!];
  if (report.by === 'team' && report.multi_team_calls) text.push('', TEAM_NOTE);
  if (report.rows.length === 0) text.splice(2, 0, '(no paid calls in this selection)');
  return `${text.join('\n')}\n`;
}
