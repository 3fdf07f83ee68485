/**
 * Per-user daily budgets (issue 14): which per-day ceiling applies to one caller. Config only
 * (GENPLAT_USER_MAX_CREDITS_PER_DAY + GENPLAT_USER_BUDGETS), not token claims: a budget is the operator's
 * decision, and a claim would let whoever runs the identity provider raise spend on our platform account.
 * The account-wide GENPLAT_MAX_CREDITS_PER_DAY applies on top, always.
 */
import type { Config } from '../config.js';

/**
 * The caller's own per-day ceiling: their override, else the default; undefined = no per-user limit
 * (none configured, or stdio, whose one user is bounded by the account's ceiling alone).
 */
export function userDayLimit(
  config: Pick<Config, 'userMaxCreditsPerDay' | 'userBudgets'>,
  owner: string | undefined,
): number | undefined {
  if (owner === undefined) return undefined;
  // Own-property lookup: a caller id such as "constructor" must not read Object.prototype.
  // (`?? {}`: configs built by hand in tests predate the field.)
  const budgets = config.userBudgets ?? {};
  if (Object.hasOwn(budgets, owner)) return budgets[owner];
  return config.userMaxCreditsPerDay;
}
