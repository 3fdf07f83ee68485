/**
 * The budgets file (`GENPLAT_BUDGETS`, issue 30 item 3): per-person defaults and overrides and per-team limits by
 * UTC day, week and month. JSON, or YAML by the file's extension (`.yaml`/`.yml`):
 *
 *     person: { day: 500, month: 6000 }              # every person's own limits (HTTP callers)
 *     people:
 *       slack:T0123:U0456: { month: 20000 }          # this person's, per period named; the others stay `person`'s
 *     teams:
 *       video-leads: { week: 4000, month: 10000 }    # what the team's members spend together
 *
 * Validated hard at start and by `doctor`: known keys and periods only, limits positive finite numbers of
 * displayed credits, owner ids and team names as the people file spells them; every problem names the entry and
 * the field. The account's own ceilings stay in the environment (GENPLAT_MAX_CREDITS_PER_DAY/_WEEK/_MONTH).
 */
import { GROUP, OWNER_ID, readDataFile } from '../people/people-file.js';
import type { BudgetPeriod } from '../store/types.js';

export const BUDGET_PERIODS: readonly BudgetPeriod[] = ['day', 'week', 'month'];

/** A limit per period; a period left out has none (at this level). */
export type PeriodLimits = Partial<Record<BudgetPeriod, number>>;

export interface BudgetsFile {
  /** Every person's default limits. */
  person: PeriodLimits;
  /** Owner id → that person's limits; a period named here replaces `person`'s for it. */
  people: Record<string, PeriodLimits>;
  /** Team name → the team's limits. */
  teams: Record<string, PeriodLimits>;
}

export const NO_BUDGETS: BudgetsFile = { person: {}, people: {}, teams: {} };

const VAR = 'GENPLAT_BUDGETS';
const TOP = ['person', 'people', 'teams'];

const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** One `{day, week, month}` mapping at `where`; problems appended as `GENPLAT_BUDGETS: <where>: <field> …`. */
function limitsOf(raw: unknown, where: string, problems: string[]): PeriodLimits {
  const out: PeriodLimits = {};
  if (!isMapping(raw)) {
    problems.push(`${VAR}: ${where}: must be a mapping of period → credits (day, week, month)`);
    return out;
  }
  for (const [key, value] of Object.entries(raw)) {
    if (!(BUDGET_PERIODS as readonly string[]).includes(key)) {
      problems.push(`${VAR}: ${where}: unknown period "${key}" (day, week, month)`);
    } else if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      problems.push(`${VAR}: ${where}: ${key} must be a positive number of displayed credits, got ${show(value)}`);
    } else {
      out[key as BudgetPeriod] = value;
    }
  }
  return out;
}

const show = (v: unknown) =>
  typeof v === 'string' ? `"${v}"` : typeof v === 'number' ? String(v) : String(JSON.stringify(v));

/** The entries of an already parsed document. */
export function parseBudgets(doc: unknown, problems: string[]): BudgetsFile {
  const out: BudgetsFile = { person: {}, people: {}, teams: {} };
  if (!isMapping(doc)) {
    problems.push(`${VAR}: must be a mapping with person, people and/or teams`);
    return out;
  }
  for (const key of Object.keys(doc)) {
    if (!TOP.includes(key)) problems.push(`${VAR}: unknown key "${key}" (person, people, teams)`);
  }
  if (doc.person !== undefined) out.person = limitsOf(doc.person, 'person', problems);
  for (const [section, pattern, what] of [
    ['people', OWNER_ID, 'an owner id (e.g. slack:T0123:U0456, token:chatbot:alice)'],
    ['teams', GROUP, 'a team name: 1-64 letters, digits or . _ -'],
  ] as const) {
    const entries = doc[section];
    if (entries === undefined) continue;
    if (!isMapping(entries)) {
      problems.push(`${VAR}: ${section}: must be a mapping of ${section === 'people' ? 'owner id' : 'team'} → limits`);
      continue;
    }
    for (const [name, limits] of Object.entries(entries)) {
      if (!pattern.test(name)) {
        problems.push(`${VAR}: ${section} "${name}": not ${what}`);
        continue;
      }
      out[section][name] = limitsOf(limits, `${section} "${name}"`, problems);
    }
  }
  return out;
}

/** Reads and validates the file at `path`. */
export function loadBudgetsFile(path: string, problems: string[]): BudgetsFile {
  const doc = readDataFile(VAR, path, problems);
  return doc === undefined ? NO_BUDGETS : parseBudgets(doc, problems);
}

/**
 * The environment's per-person day settings and the file must not both say one thing (which would win is a
 * guess an operator should not have to make): GENPLAT_USER_MAX_CREDITS_PER_DAY vs `person.day`, and an id of
 * GENPLAT_USER_BUDGETS vs that id's `people.<id>.day`.
 */
export function budgetConflicts(
  file: BudgetsFile,
  env: { userMaxCreditsPerDay: number | undefined; userBudgets: Record<string, number> },
  problems: string[],
): void {
  if (file.person.day !== undefined && env.userMaxCreditsPerDay !== undefined) {
    problems.push(
      `${VAR}: person: day is also set by GENPLAT_USER_MAX_CREDITS_PER_DAY; set each person's day limit in one place`,
    );
  }
  for (const id of Object.keys(env.userBudgets)) {
    if (Object.hasOwn(file.people, id) && file.people[id]?.day !== undefined) {
      problems.push(`${VAR}: people "${id}": day is also set by GENPLAT_USER_BUDGETS; set it in one place`);
    }
  }
}
