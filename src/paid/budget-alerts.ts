/**
 * Threshold alerts as log lines (issue 30 item 4): the `budget.threshold` events an admission newly wrote to the
 * outbox (the store returns only those: an event already written this period is skipped by its dedupe key, so the
 * line is logged once per period per budget across a fleet, by whichever instance crossed it). Logged after the
 * commit, since before it the admission might still roll back.
 */
import type { Logger } from '../log.js';
import type { BundleAdmitResult } from '../store/types.js';

export function logBudgetAlerts(log: Pick<Logger, 'warn'>, admitted: BundleAdmitResult): void {
  if (!admitted.admitted) return;
  for (const e of admitted.alerts ?? []) {
    if (e.type !== 'budget.threshold') continue;
    const d = e.body.data as Record<string, unknown>;
    const who = d.scope === 'account' ? 'the account' : `${String(d.scope)} ${String(d.name)}`;
    log.warn(`budget threshold: ${who} reached ${String(d.percent)} % of its ${String(d.period)} budget`, {
      scope: d.scope,
      ...(d.name !== undefined ? { name: d.name } : {}),
      period: d.period,
      since: d.since,
      limit: d.limit,
      spent: d.spent,
      percent: d.percent,
    });
  }
}
