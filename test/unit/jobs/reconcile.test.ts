/**
 * What a record counts toward the day, and quote vs reported charge (src/jobs/reconcile.ts), plus the
 * ledger's `spendSince` over a record that only has the platform's estimate (dedicated family).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { estimate } from '../../../src/jobs/envelope.js';
import { countedCredits, reconcile } from '../../../src/jobs/reconcile.js';
import type { JobRecord } from '../../../src/jobs/store.js';
import { newRecord, type TestDir, testDir } from '../../helpers/store-helpers.js';

type Figures = Parameters<typeof countedCredits>[0];
const rec = (over: Partial<JobRecord>): Figures => ({
  estimate: estimate(100, 'quote'),
  creditsCharged: undefined,
  creditsRefunded: undefined,
  platformEstimate: undefined,
  outcome: 'submitted',
  status: 'processing',
  ...over,
});

describe('countedCredits', () => {
  it.each([
    ['running, nothing reported: the quote', rec({}), 100],
    ['running, charged below the quote: the quote', rec({ creditsCharged: 60 }), 100],
    ['running, charged above the quote: the charge', rec({ creditsCharged: 250 }), 250],
    ['running, platform estimate above the quote: the estimate', rec({ platformEstimate: 400 }), 400],
    ['unknown outcome: the quote', rec({ outcome: 'unknown', status: 'unknown' }), 100],
    ['final, charged above: the charge', rec({ status: 'completed', creditsCharged: 250 }), 250],
    ['final, charged below: the charge', rec({ status: 'completed', creditsCharged: 60 }), 60],
    ['final, only a platform estimate: the estimate', rec({ status: 'completed', platformEstimate: 400 }), 400],
    ['final, nothing reported: the quote', rec({ status: 'completed' }), 100],
    ['final, refunded in full: 0', rec({ status: 'failed', creditsCharged: 250, creditsRefunded: 250 }), 0],
    ['refund above charge: never negative', rec({ status: 'failed', creditsCharged: 10, creditsRefunded: 50 }), 0],
    ['rejected: nothing', rec({ outcome: 'rejected', status: 'failed', creditsCharged: 250 }), 0],
  ] as const)('%s', (_name, r, want) => {
    expect(countedCredits(r)).toBe(want);
  });
});

describe('reconcile', () => {
  it('is undefined until the platform reported a figure, or without a quote', () => {
    expect(reconcile(rec({}))).toBeUndefined();
    expect(reconcile(rec({ estimate: undefined, creditsCharged: 5 }))).toBeUndefined();
  });

  it('flags a charge above the quote with the excess and what the day counts', () => {
    expect(reconcile(rec({ creditsCharged: 240, platformEstimate: 200 }))).toEqual({
      quote_credits: 100,
      charged_credits: 240,
      above_quote: true,
      excess_credits: 140,
      counted_credits: 240,
    });
    expect(reconcile(rec({ status: 'failed', creditsCharged: 80, creditsRefunded: 80 }))).toEqual({
      quote_credits: 100,
      charged_credits: 80,
      refunded_credits: 80,
      above_quote: false,
      excess_credits: 0,
      counted_credits: 0,
    });
  });
});

describe('spendSince with a platform estimate above the quote', () => {
  let t: TestDir | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });

  it('counts the higher figure while running and once final', async () => {
    t = await testDir();
    const store = await t.open();
    const r = await store.track(newRecord({ estimate: estimate(100, 'assumed') }));
    await store.observe(r.id, { outcome: 'submitted', status: 'processing', platformEstimate: 400 });
    const day = new Date(Date.parse(r.createdAt) - 1000);
    expect(await store.spendSince(day)).toBe(400);
    await store.observe(r.id, { status: 'completed' });
    expect(await store.spendSince(day)).toBe(400);
  });
});
