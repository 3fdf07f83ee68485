/**
 * The spend report (issue 30 item 5): ONE query over the audit, read by the `genplat://spend/report` resource, the
 * spend-report View and `genplat-mcp report`. It folds the append-only rows with the audit export's own
 * `foldAudit` (one row per call) and sums each call into the group `by` names. Per call:
 *
 * - quoted   = the quote the person consented to, from the `admit` row (every admitted call, even one the
 *              platform then refused or a campaign item released unsent: it was consented and held);
 * - charged  = the charge the platform reported, as last observed (0 when it reported none: many kinds never do);
 * - refunded = the refund the platform reported, as last observed;
 * - counted  = what the call counts against the ceilings now (the store's spend rule, `countedCredits`): the
 *              figure to read as "what it cost" when the platform reports no charge.
 *
 * Groups: person = the owner id (stdio calls: `(stdio)`), named from the people file, else by the name the
 * request carried (`recorded`); team = the `admit` row's `teams` when it has them, else the owner's groups in the
 * people file, else `(no team)` — a call in several teams counts in each, so team rows may add up to more than
 * the total; tool; day / week (ISO 8601, weeks start Monday 00:00 UTC) / month, all of the admission time in UTC.
 * Pure: no store, no clock.
 */
import { type AuditCallRow, foldAudit } from '../audit/export.js';
import { NO_PEOPLE, type PeopleDirectory } from '../people/people-file.js';
import { personEntry } from '../people/same-person.js';
import type { AuditEvent } from '../store/types.js';
import type { ReportBy, ReportSelection } from './selection.js';

export { REPORT_BY, type ReportBy, type ReportSelection } from './selection.js';

export interface ReportFigures {
  calls: number;
  quoted_credits: number;
  charged_credits: number;
  refunded_credits: number;
  counted_credits: number;
}

export interface ReportRow extends ReportFigures {
  /** The group: owner id, team, tool, `2026-03-10`, `2026-W11` or `2026-03`. */
  key: string;
  /** What people read: the person's name where the people file has one, else the key. */
  label: string;
}

export interface SpendReport {
  by: ReportBy;
  since: string | null;
  until: string | null;
  rows: ReportRow[];
  /** Every selected call once (a call in two teams is in two team rows, and once here). */
  total: ReportFigures;
  /** by team: the calls counted in more than one team's row. */
  multi_team_calls?: number;
}

export const NO_TEAM = '(no team)';
export const STDIO_PERSON = '(stdio)';

/** The team rows' caveat, said wherever the report is shown. */
export const TEAM_NOTE =
  "A call whose person is in several teams counts in each team's row, so team rows can add up to more than the total.";

const zero = (): ReportFigures => ({
  calls: 0,
  quoted_credits: 0,
  charged_credits: 0,
  refunded_credits: 0,
  counted_credits: 0,
});

// Displayed credits may be fractional (0.5 credit): sums are kept to 6 decimals so 0.1 + 0.2 reads 0.3.
const plus = (a: number, b: number) => Math.round((a + b) * 1e6) / 1e6;

function add(into: ReportFigures, call: AuditCallRow): void {
  const n = (v: string | number | null) => (typeof v === 'number' ? v : 0);
  into.calls += 1;
  into.quoted_credits = plus(into.quoted_credits, n(call.quote_credits));
  into.charged_credits = plus(into.charged_credits, n(call.charged_credits));
  into.refunded_credits = plus(into.refunded_credits, n(call.refunded_credits));
  into.counted_credits = plus(into.counted_credits, n(call.counted_credits));
}

/** `2026-03-10` → the ISO week `2026-W11` (Monday-start weeks; week 1 holds the year's first Thursday). */
export function isoWeek(day: Date): string {
  const d = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate());
  const thursday = new Date(d + (3 - ((day.getUTCDay() + 6) % 7)) * 86_400_000);
  const year = thursday.getUTCFullYear();
  const week = 1 + Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * 86_400_000));
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** The period key of an ISO instant, UTC. */
export function periodOf(by: 'day' | 'week' | 'month', iso: string): string {
  if (by === 'day') return iso.slice(0, 10);
  if (by === 'month') return iso.slice(0, 7);
  return isoWeek(new Date(iso));
}

/** The teams a call counts in (see the module comment). */
export function teamsOf(teams: readonly string[] | undefined, owner: string | null, people: PeopleDirectory): string[] {
  if (teams?.length) return [...new Set(teams)];
  const groups = owner ? personEntry(people, owner)?.groups : undefined;
  return groups?.length ? [...new Set(groups)] : [NO_TEAM];
}

/**
 * The report over `events` (the rows of `Store.auditEvents`, already scoped to what the reader may see).
 * Rows: periods in time order; people, teams and tools by counted credits, largest first, then by key.
 */
export function spendReport(
  events: readonly AuditEvent[],
  selection: ReportSelection,
  people: PeopleDirectory = NO_PEOPLE,
  /** Names the requests themselves carried, for callers the people file does not name (recorded-names.ts). */
  recorded: ReadonlyMap<string, string> = new Map(),
): SpendReport {
  const { by, since, until } = selection;
  const teamsByCall = new Map<string, readonly string[] | undefined>();
  for (const e of events) if (e.event === 'admit') teamsByCall.set(e.ledgerId, e.teams);
  const groups = new Map<string, ReportRow>();
  const total = zero();
  let multiTeam = 0;
  for (const call of foldAudit(events, people)) {
    const at = String(call.admitted_at);
    const t = Date.parse(at);
    if (since && t < since.getTime()) continue;
    if (until && t >= until.getTime()) continue;
    add(total, call);
    const owner = typeof call.owner === 'string' ? call.owner : null;
    let keys: string[];
    if (by === 'person') keys = [owner ?? STDIO_PERSON];
    else if (by === 'tool') keys = [String(call.tool)];
    else if (by === 'team') {
      keys = teamsOf(teamsByCall.get(String(call.ledger_id)), owner, people);
      if (keys.length > 1) multiTeam++;
    } else keys = [periodOf(by, at)];
    for (const key of keys) {
      let row = groups.get(key);
      if (!row) {
        const name = by === 'person' && owner ? (call.owner_name ?? recorded.get(owner)) : null;
        row = { key, label: typeof name === 'string' ? name : key, ...zero() };
        groups.set(key, row);
      }
      add(row, call);
    }
  }
  const periods = by === 'day' || by === 'week' || by === 'month';
  const rows = [...groups.values()].sort((a, b) =>
    periods
      ? a.key.localeCompare(b.key)
      : b.counted_credits - a.counted_credits || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  return {
    by,
    since: since?.toISOString() ?? null,
    until: until?.toISOString() ?? null,
    rows,
    total,
    ...(by === 'team' ? { multi_team_calls: multiTeam } : {}),
  };
}
