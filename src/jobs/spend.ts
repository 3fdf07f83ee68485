/**
 * Today's spend against the configured budgets, as list_jobs and `genplat://spend` report it. The figures
 * come from the ledger (the same `spendSince` the cost guard uses), so what the agent sees is what the
 * guard enforces. The quote-vs-charge figures come from the same records (see reconcile.ts).
 */
import { z } from 'zod';
import type { Config, ConfirmPolicy } from '../config.js';
import { budgetPerson, budgetRules, userDayLimit } from '../paid/budgets.js';
import { utcDayStart } from '../paid/guard.js';
import type { BudgetPeriod, BudgetRule } from '../store/types.js';
import { reconcile, reportedCharge } from './reconcile.js';
import type { JobStore } from './store.js';

export const SpendShape = {
  today_credits: z.number().describe('displayed credits spent or held since 00:00 UTC on the account (every caller)'),
  max_credits_per_day: z.number().describe('per-day ceiling (GENPLAT_MAX_CREDITS_PER_DAY)'),
  remaining_today: z.number().describe('credits left under the per-day ceiling'),
  max_credits_per_call: z.number().describe('per-call ceiling (GENPLAT_MAX_CREDITS_PER_CALL)'),
  confirmation: z.string().describe('when the user is asked before a paid job'),
  quoted_today_credits: z.number().describe("sum of the quotes of today's jobs (consented figures)"),
  charged_today_credits: z.number().describe('sum of the charges the platform reported today (jobs that reported one)'),
  above_quote_today_credits: z
    .number()
    .describe('credits charged above their quotes today (already counted in today_credits)'),
  jobs_above_quote_today: z.number().describe('jobs the platform charged above their quote today'),
  you: z
    .object({
      caller: z.string().describe('your caller id (as the audit export names you)'),
      today_credits: z.number().describe('your spend or hold since 00:00 UTC'),
      max_credits_per_day: z.number().optional().describe('your per-user daily budget; absent = none'),
      remaining_today: z.number().describe('what you can still spend today (your budget and the account ceiling)'),
      summary: z.string(),
    })
    .optional()
    .describe('HTTP callers: your own spend and budget'),
};
export const SpendSchema = z.object(SpendShape);
export type Spend = z.infer<typeof SpendSchema>;

export function describeConfirm(policy: ConfirmPolicy): string {
  switch (policy.mode) {
    case 'always':
      return 'every paid job needs the user to confirm its cost';
    case 'never':
      return 'paid jobs start without confirmation (within the ceilings)';
    case 'above':
      return `jobs above ${policy.credits} credits need the user to confirm`;
  }
}

/** @throws whatever the store throws when the ledger cannot be read. */
export async function spendToday(
  config: Config,
  jobs: JobStore,
  owner: string | undefined,
  now = Date.now(),
): Promise<Spend> {
  const since = utcDayStart(now);
  // The account's figure, as the account ceiling counts it (over HTTP: every caller's jobs).
  const today = await jobs.spendSince(since);
  const accountLeft = Math.max(0, config.maxCreditsPerDay - today);
  let quoted = 0;
  let charged = 0;
  let above = 0;
  let aboveJobs = 0;
  for (const r of await jobs.list({ owner, since })) {
    if (r.outcome === 'rejected') continue;
    quoted += r.estimate?.credits ?? 0;
    charged += reportedCharge(r) ?? 0;
    const rc = reconcile(r);
    if (rc?.above_quote) {
      above += rc.excess_credits;
      aboveJobs++;
    }
  }
  return {
    today_credits: today,
    max_credits_per_day: config.maxCreditsPerDay,
    remaining_today: accountLeft,
    max_credits_per_call: config.maxCreditsPerCall,
    confirmation: describeConfirm(config.confirm),
    quoted_today_credits: quoted,
    charged_today_credits: charged,
    above_quote_today_credits: above,
    jobs_above_quote_today: aboveJobs,
    ...(owner !== undefined ? { you: await yourSpend(config, jobs, owner, since, accountLeft) } : {}),
  };
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** The caller's own line: the same counting rule as the ceilings (`spendSince` with an owner). */
async function yourSpend(
  config: Config,
  jobs: JobStore,
  owner: string,
  since: Date,
  accountLeft: number,
): Promise<NonNullable<Spend['you']>> {
  // A person's spend is that of all their ids (the people file's `also`): the figure their day ceiling counts.
  let mine = 0;
  for (const id of budgetPerson(config, owner).ids) mine += await jobs.spendSince(since, id);
  const limit = userDayLimit(config, owner);
  const left = limit === undefined ? accountLeft : Math.min(accountLeft, Math.max(0, limit - mine));
  return {
    caller: owner,
    today_credits: mine,
    ...(limit !== undefined ? { max_credits_per_day: limit } : {}),
    remaining_today: left,
    summary:
      limit === undefined
        ? `you: ${fmt(mine)} credits today (no per-user budget; ${fmt(left)} left on the account)`
        : `you: ${fmt(mine)} of ${fmt(limit)} credits today (${fmt(left)} left)`,
  };
}

/** The person's day budget as a budget line's rule: named by their entry's id, counted over all their ids. */
function personDay(config: Config, owner: string, since: Date, limit: number): BudgetRule {
  const person = budgetPerson(config, owner);
  return {
    scope: 'person',
    name: person.key,
    ...(person.ids.length > 1 ? { owners: person.ids } : {}),
    period: 'day',
    since,
    limit,
  };
}

/** One budget that applies to the caller, as `genplat://spend` shows it (issue 30). */
export interface BudgetLine {
  /** `account`, `person <id>`, `team <name>`. */
  budget: string;
  period: BudgetPeriod;
  /** The period's start (UTC, ISO). */
  since: string;
  limit: number;
  spent: number;
  left: number;
}

/**
 * Every budget that applies to this caller (account, person, each of their teams × day, week, month) with what
 * was spent or held since its period began and what is left, read with the admission's own fact queries (plain
 * reads, so the same counting rule as the refusals).
 * @throws whatever the store throws when it cannot be read.
 */
export async function budgetStatus(
  config: Config,
  jobs: JobStore,
  who: { owner: string | undefined; teams?: readonly string[] | undefined },
  now = Date.now(),
): Promise<BudgetLine[]> {
  const dayStart = utcDayStart(now);
  const userLimit = userDayLimit(config, who.owner);
  const day: BudgetRule[] = [
    { scope: 'account', period: 'day', since: dayStart, limit: config.maxCreditsPerDay },
    ...(who.owner !== undefined && userLimit !== undefined ? [personDay(config, who.owner, dayStart, userLimit)] : []),
  ];
  const budgets = [...day, ...budgetRules(config, who, now)];
  const facts = await jobs.readAdmissionFacts({
    maxCreditsPerCall: config.maxCreditsPerCall,
    maxCreditsPerDay: config.maxCreditsPerDay,
    dayStart,
    budgets,
  });
  return budgets.map((b, i) => {
    const spent = facts.budgetSpent?.[i] ?? 0;
    return {
      budget: b.scope === 'account' ? 'account' : `${b.scope} ${b.name ?? ''}`,
      period: b.period,
      since: b.since.toISOString(),
      limit: b.limit,
      spent,
      left: Math.max(0, b.limit - spent),
    };
  });
}
