/**
 * Budget periods (issue 30), all in UTC so every instance of a fleet agrees whatever its time zone:
 * - day: from 00:00 UTC;
 * - week: the ISO week, from Monday 00:00 UTC;
 * - month: from the 1st 00:00 UTC.
 * A call belongs to the period its record was admitted in (`created_at`), never to when it was charged.
 */
import type { BudgetPeriod } from '../store/types.js';

const DAY_MS = 86_400_000;

/** The start of the period `now` falls in. */
export function periodStart(period: BudgetPeriod, now: number): Date {
  const d = new Date(now);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (period === 'day') return new Date(day);
  if (period === 'month') return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  // getUTCDay: Sunday 0 … Saturday 6; days since Monday: (day + 6) % 7.
  return new Date(day - ((d.getUTCDay() + 6) % 7) * DAY_MS);
}

/** The start of the period after the one starting at `start`. */
export function nextPeriodStart(period: BudgetPeriod, start: Date): Date {
  if (period === 'day') return new Date(start.getTime() + DAY_MS);
  if (period === 'week') return new Date(start.getTime() + 7 * DAY_MS);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}
