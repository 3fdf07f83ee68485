/**
 * Reconciliation (issue 9, item 3): when the platform reports a charge above the quote, the ledger keeps both
 * figures, a warning is logged, the job envelope and list_jobs show it, today's spend counts the charge, and
 * the per-day ceiling then refuses a call that fits only under the quote. The simulator's `overcharge` fault
 * (src/sim/overcharge.ts) makes the platform charge more than its price.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BILLABLE_EXAMPLES } from '../helpers/examples.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const GESTURE = { method: 'POST', path: '/gestures/generate' } as const;
const gestureArgs = (n: number) => ({ prompt: `waves, take ${n}`, image_url: 'https://cdn.example.com/p.png' });
const warnings = (hh: Harness) => hh.logs.filter((l) => l.includes('platform charge above the quote'));

/** Re-calls wait_for_jobs (as an agent does) until the job is terminal; returns its envelope. */
async function waitDone(hh: Harness, handle: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 20; i++) {
    const w = structured(await hh.call('wait_for_jobs', { handles: [handle], max_wait_s: 5 }));
    const job = (w.jobs as Record<string, unknown>[])[0]!;
    if (job.status === 'completed' || job.status === 'failed') return job;
  }
  throw new Error(`${handle} did not finish`);
}

describe('a charge above the quote reported at submit (animate_gesture)', () => {
  it('is logged, shown, counted in the day, and the per-day ceiling counts it', async () => {
    // 300 a day: two 100-credit quotes fit, but a 250 charge plus a 100 quote does not.
    // Gestures have no published price: the operator table quotes 100 (the harness confirms it once).
    h = await startHarness({ config: { maxCreditsPerDay: 300, priceTable: { animate_gesture: 100 } } });
    h.sim.faults.add({ ...GESTURE, kind: 'overcharge', chargeCredits: 250 });

    const first = structured(await h.call('animate_gesture', gestureArgs(1)));
    expect(first.status).toBe('submitted');
    expect(first.estimate).toMatchObject({ credits: 100 });
    expect(first.credits_charged).toBe(250);
    expect(first.reconciliation).toEqual({
      quote_credits: 100,
      charged_credits: 250,
      above_quote: true,
      excess_credits: 150,
      counted_credits: 250,
    });
    expect(String(first.next_step)).toMatch(/250 credits for this job, 150 above the 100-credit quote/);

    expect(warnings(h)).toHaveLength(1);
    expect(warnings(h)[0]).toMatch(/"quote":100,"charged":250,"excess":150/);
    expect(warnings(h)[0]).not.toContain(h.sim.apiKey);

    // The ledger keeps both figures.
    const rec = await h.jobs.get(String(first.handle));
    expect(rec).toMatchObject({ estimate: { credits: 100 }, creditsCharged: 250 });

    // Finished, the envelope still shows it (the status read reports the same charge; no second warning).
    const done = await waitDone(h, String(first.handle));
    expect(done.status).toBe('completed');
    expect(done.reconciliation).toMatchObject({ above_quote: true, charged_credits: 250, counted_credits: 250 });
    expect(String(done.next_step)).toMatch(/150 above the 100-credit quote/);
    expect(warnings(h)).toHaveLength(1);

    const listed = structured(await h.call('list_jobs', {}));
    const job = (listed.jobs as Record<string, unknown>[])[0]!;
    expect(job.reconciliation).toMatchObject({ quote_credits: 100, charged_credits: 250, above_quote: true });
    expect(listed.spend).toMatchObject({
      today_credits: 250,
      remaining_today: 50,
      quoted_today_credits: 100,
      charged_today_credits: 250,
      above_quote_today_credits: 150,
      jobs_above_quote_today: 1,
    });
    expect(String(listed.next_step)).toMatch(/charged above the quote/);

    // 250 + 100 > 300: refused unsent, though 100 + 100 would have fit.
    const second = await h.call('animate_gesture', gestureArgs(2));
    expect(second.isError).toBe(true);
    expect(text(second)).toMatch(/250 credits already spent.*per-day ceiling of 300/);
    expect(h.sim.log.count(GESTURE)).toBe(1);
  });

  it('a charge at or below the quote is shown without a warning', async () => {
    h = await startHarness({ config: { priceTable: { animate_gesture: 100 } } });
    const r = structured(await h.call('animate_gesture', gestureArgs(3)));
    expect(r.reconciliation).toMatchObject({ quote_credits: 100, charged_credits: 100, above_quote: false });
    expect(String(r.next_step)).not.toMatch(/above the/);
    expect(warnings(h)).toHaveLength(0);
  });
});

describe('the dedicated family reports estimated_credits and credits_charged at submit', () => {
  it('keeps the platform estimate and the charge beside the quote', async () => {
    h = await startHarness();
    const ex = BILLABLE_EXAMPLES.create_family_video!;
    h.sim.faults.add({ method: 'POST', path: ex.route(h.sim), kind: 'overcharge', chargeCredits: 4_000 });
    const r = structured(await h.call('create_family_video', ex.args(h.sim, 1)));
    expect(r.status).toBe('submitted');
    const quote = (r.estimate as { credits: number }).credits;
    expect(quote).toBeLessThan(4_000);
    expect(r.reconciliation).toMatchObject({
      charged_credits: 4_000,
      above_quote: true,
      excess_credits: 4_000 - quote,
    });
    const rec = await h.jobs.get(String(r.handle));
    expect(rec).toMatchObject({ creditsCharged: 4_000, platformEstimate: 4_000 });
    expect(warnings(h)).toHaveLength(1);
    const spend = structured(await h.call('list_jobs', {})).spend as Record<string, number>;
    expect(spend.today_credits).toBe(4_000);
  });
});

describe('a charge above the quote learned from a status read (upscale_video)', () => {
  it('reaches the ledger, the envelope, the log and the day', async () => {
    h = await startHarness();
    const ex = BILLABLE_EXAMPLES.upscale_video!;
    h.sim.faults.add({ method: 'POST', path: ex.route(h.sim), kind: 'overcharge', chargeCredits: 5_000 });
    const r = structured(await h.call('upscale_video', ex.args(h.sim)));
    expect(r.status, JSON.stringify(r)).toBe('submitted');
    const quote = (r.estimate as { credits: number }).credits;
    expect(quote).toBeLessThan(5_000);
    // The submit answer reports no charge: nothing to reconcile yet.
    expect(r.reconciliation).toBeUndefined();

    const done = await waitDone(h, String(r.handle));
    expect(done.status).toBe('completed');
    expect(done.reconciliation).toMatchObject({ quote_credits: quote, charged_credits: 5_000, above_quote: true });
    expect(String(done.next_step)).toMatch(/above the/);
    expect(await h.jobs.get(String(r.handle))).toMatchObject({ creditsCharged: 5_000, status: 'completed' });
    expect(warnings(h)).toHaveLength(1);
    const spend = structured(await h.call('list_jobs', {})).spend as Record<string, number>;
    expect(spend.today_credits).toBe(5_000);
    expect(spend.above_quote_today_credits).toBe(5_000 - quote);
  });
});
