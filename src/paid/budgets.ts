/**
 * Which budgets apply to one caller (issues 14 and 30). Config only (GENPLAT_MAX_CREDITS_PER_DAY/_WEEK/_MONTH,
 * GENPLAT_USER_MAX_CREDITS_PER_DAY, GENPLAT_USER_BUDGETS, GENPLAT_BUDGETS), not token claims: a limit is the
 * operator's decision, and a claim would let whoever runs the identity provider raise spend on our platform
 * account. Claims only say which teams a caller is in (src/people/directory.ts); the file says what a team may spend.
 * The account-wide ceilings apply on top, always.
 */
import type { Config } from '../config.js';
import { idsOfPerson } from '../people/same-person.js';
import type { BudgetPeriod, BudgetRule } from '../store/types.js';
import { BUDGET_PERIODS, type PeriodLimits } from './budgets-file.js';
import { periodStart } from './periods.js';

type BudgetConfig = Pick<
  Config,
  'userMaxCreditsPerDay' | 'userBudgets' | 'maxCreditsPerWeek' | 'maxCreditsPerMonth' | 'budgets' | 'people'
>;

/**
 * Whose budget a caller spends: the person's (their people-file entry's id, `key`) and every id of theirs whose
 * spend counts together (`ids`: the entry's and its `also` ids). One human asking as `token:chatbot:U1` and as
 * `slack:T1:U1` spends one budget, not two. An id the people file does not know is a person of one id.
 */
export function budgetPerson(
  config: Partial<Pick<Config, 'people'>>,
  owner: string,
): { key: string; ids: readonly string[] } {
  const ids = config.people ? idsOfPerson(config.people, owner) : [owner];
  return { key: ids[0] ?? owner, ids };
}

/** Own-property lookup: an id such as "constructor" must not read Object.prototype. */
const own = <T>(map: Record<string, T> | undefined, key: string): T | undefined =>
  map && Object.hasOwn(map, key) ? map[key] : undefined;

/**
 * The caller's own per-day ceiling and the setting it comes from (for the refusal to name: the operator raises it
 * there; the start refuses the same limit in the environment and the file, so naming the wrong one misleads):
 * their override (GENPLAT_USER_BUDGETS, or `people.<id>.day` of the budgets file), else the default
 * (GENPLAT_USER_MAX_CREDITS_PER_DAY, or `person.day`). undefined = no per-user limit (none configured, or stdio,
 * whose one user is bounded by the account's ceilings alone). Looked up on the person's entry id (an override
 * under an alias id is refused at start).
 */
export function personDayBudget(
  config: Partial<BudgetConfig>,
  caller: string | undefined,
): { limit: number; source: string } | undefined {
  if (caller === undefined) return undefined;
  const owner = budgetPerson(config, caller).key;
  // (`?? {}`: configs built by hand in tests predate the fields.)
  const override = own(config.userBudgets ?? {}, owner);
  if (override !== undefined) return { limit: override, source: 'GENPLAT_USER_BUDGETS' };
  const fromFile = own(config.budgets?.people, owner)?.day ?? config.budgets?.person.day;
  if (fromFile !== undefined) return { limit: fromFile, source: 'GENPLAT_BUDGETS' };
  const dflt = config.userMaxCreditsPerDay;
  return dflt === undefined ? undefined : { limit: dflt, source: 'GENPLAT_USER_MAX_CREDITS_PER_DAY' };
}

/** `personDayBudget`'s limit alone. */
export function userDayLimit(config: Partial<BudgetConfig>, caller: string | undefined): number | undefined {
  return personDayBudget(config, caller)?.limit;
}

/**
 * Every budget besides the account's and the person's day ceilings (which keep their own rules and refusals,
 * `AdmitRules.maxCreditsPerDay` / `user`), in the order the admission rule checks them: the account's week and
 * month, the person's week and month, then each of the caller's teams that has limits (by name) by day, week and
 * month. `teams`: decided from verified identity only (people file groups, the OAuth groups claim).
 */
export function budgetRules(
  config: Partial<BudgetConfig>,
  who: { owner: string | undefined; teams?: readonly string[] | undefined },
  now: number,
): BudgetRule[] {
  const out: BudgetRule[] = [];
  const add = (scope: BudgetRule['scope'], name: string | undefined, limits: PeriodLimits, periods = PERIODS) => {
    for (const period of periods) {
      const limit = limits[period];
      if (limit === undefined) continue;
      out.push({ scope, ...(name !== undefined ? { name } : {}), period, since: periodStart(period, now), limit });
    }
  };
  add('account', undefined, { week: config.maxCreditsPerWeek, month: config.maxCreditsPerMonth }, LONGER);
  if (who.owner !== undefined) {
    const person = budgetPerson(config, who.owner);
    const mine = own(config.budgets?.people, person.key) ?? {};
    const dflt = config.budgets?.person ?? {};
    const before = out.length;
    add('person', person.key, { week: mine.week ?? dflt.week, month: mine.month ?? dflt.month }, LONGER);
    if (person.ids.length > 1) for (const rule of out.slice(before)) rule.owners = person.ids;
  }
  for (const team of [...new Set(who.teams ?? [])].sort()) {
    const limits = own(config.budgets?.teams, team);
    if (limits) add('team', team, limits);
  }
  return out;
}

const PERIODS = BUDGET_PERIODS;
/** The periods beyond the day (the day ceilings of the account and the person are `AdmitRules`' own fields). */
const LONGER: readonly BudgetPeriod[] = ['week', 'month'];
