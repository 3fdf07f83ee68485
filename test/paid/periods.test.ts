/** Budget periods (issue 30): UTC day, ISO week from Monday 00:00, month from the 1st 00:00, at their edges. */
import { describe, expect, it } from 'vitest';
import { nextPeriodStart, periodStart } from '../../src/paid/periods.js';
import type { BudgetPeriod } from '../../src/store/types.js';

const start = (p: BudgetPeriod, iso: string) => periodStart(p, Date.parse(iso)).toISOString();

describe('periodStart / nextPeriodStart', () => {
  it('weeks start on Monday 00:00 UTC, across a year boundary too', () => {
    expect(start('week', '2026-11-30T00:00:00.000Z')).toBe('2026-11-30T00:00:00.000Z'); // Monday
    expect(start('week', '2026-11-29T23:59:59.999Z')).toBe('2026-11-23T00:00:00.000Z'); // Sunday
    expect(start('week', '2027-01-01T12:00:00.000Z')).toBe('2026-12-28T00:00:00.000Z'); // Friday
    expect(nextPeriodStart('week', new Date('2026-12-28T00:00:00.000Z')).toISOString()).toBe(
      '2027-01-04T00:00:00.000Z',
    );
  });

  it('months start on the 1st 00:00 UTC (leap February included); days at 00:00 UTC', () => {
    expect(start('month', '2028-02-29T23:59:59.999Z')).toBe('2028-02-01T00:00:00.000Z');
    expect(start('month', '2028-03-01T00:00:00.000Z')).toBe('2028-03-01T00:00:00.000Z');
    expect(nextPeriodStart('month', new Date('2026-12-01T00:00:00.000Z')).toISOString()).toBe(
      '2027-01-01T00:00:00.000Z',
    );
    expect(start('day', '2026-11-29T23:59:59.999Z')).toBe('2026-11-29T00:00:00.000Z');
    expect(nextPeriodStart('day', new Date('2026-11-29T00:00:00.000Z')).toISOString()).toBe('2026-11-30T00:00:00.000Z');
  });
});
