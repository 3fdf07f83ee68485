/**
 * Who may read every caller's spend report over HTTP (`GENPLAT_REPORT_READERS`, issue 30 item 5): by default an
 * HTTP caller reads their own calls only, so a team lead or finance in a chat host sees nothing but their own
 * spend. The operator may name owner ids (`token:lead`, `slack:T1:U2`) and teams (`group:finance`: a people-file
 * group or a verified OAuth groups claim) that read all of it. Config only: who sees everyone's spend is the
 * operator's decision, never a tool argument or a claim the caller chooses (a group counts only from verified
 * identity, as for budgets). Read-only: it grants no spending.
 */
import { GROUP, OWNER_ID } from '../people/people-file.js';

export interface ReportReaders {
  ids: readonly string[];
  groups: readonly string[];
}

/** Parses `token:lead,group:finance`; each problem names the entry and the rule. */
export function parseReportReaders(value: string | undefined, problems: string[]): ReportReaders | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const ids: string[] = [];
  const groups: string[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    if (entry.startsWith('group:')) {
      const group = entry.slice('group:'.length);
      if (GROUP.test(group)) groups.push(group);
      else problems.push(`GENPLAT_REPORT_READERS: "${entry}": a group must be 1-64 letters, digits or . _ -`);
    } else if (OWNER_ID.test(entry)) ids.push(entry);
    else
      problems.push(
        `GENPLAT_REPORT_READERS: "${entry.slice(0, 40)}": not an owner id (e.g. token:lead, slack:T1:U2) nor group:<name>`,
      );
  }
  return ids.length || groups.length ? { ids, groups } : undefined;
}

/** Whether this verified caller (owner id, groups from verified identity) reads every caller's calls. */
export function readsEveryone(
  readers: ReportReaders | undefined,
  owner: string,
  groups: readonly string[] | undefined,
): boolean {
  if (!readers) return false;
  return readers.ids.includes(owner) || (groups ?? []).some((g) => readers.groups.includes(g));
}
