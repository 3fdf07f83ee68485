/**
 * A report selection from text (the resource's query, the CLI's flags): `by` one of REPORT_BY, `since` / `until`
 * ISO 8601 dates or date-times (a date is 00:00 UTC; `until` is exclusive). Each problem names its field. Kept
 * free of imports: the config module (every start) reads it.
 */

export const REPORT_BY = ['person', 'team', 'tool', 'day', 'week', 'month'] as const;
export type ReportBy = (typeof REPORT_BY)[number];

/** Which calls (admitted in [since, until)) and how they are grouped. */
export interface ReportSelection {
  by: ReportBy;
  since?: Date | undefined;
  until?: Date | undefined;
}

export type Problem = { field: string; rule: string };

// Date.parse accepts odd spellings ("1"): only an ISO 8601 date or date-time is a bound the user meant.
const ISO = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

function isoDate(field: string, text: string | undefined, problems: Problem[]): Date | undefined {
  if (text === undefined) return undefined;
  // The report is in UTC: a date is its 00:00 UTC, a date-time without an offset is read as UTC too.
  const utc = /[T ]/.test(text) ? (/(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`) : `${text}T00:00:00Z`;
  const d = ISO.test(text) ? new Date(utc.replace(' ', 'T')) : undefined;
  if (!d || Number.isNaN(d.getTime())) {
    problems.push({ field, rule: `must be an ISO 8601 date or date-time (e.g. 2026-03-01), got "${text}"` });
    return undefined;
  }
  return d;
}

export function parseSelection(
  values: { by?: string | undefined; since?: string | undefined; until?: string | undefined },
  problems: Problem[],
  defaultBy: ReportBy = 'person',
): ReportSelection {
  const by = values.by ?? defaultBy;
  if (!(REPORT_BY as readonly string[]).includes(by))
    problems.push({ field: 'by', rule: `must be one of ${REPORT_BY.join(', ')}, got "${by}"` });
  const since = isoDate('since', values.since, problems);
  const until = isoDate('until', values.until, problems);
  if (since && until && until <= since) problems.push({ field: 'until', rule: 'must be after since' });
  return { by: by as ReportBy, since, until };
}
