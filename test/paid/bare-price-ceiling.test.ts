/**
 * Issue 27, finding 1, end to end: a catalog price without a unit word ("0.5 per generation") was quoted as
 * displayed credits (1 credit, bounded, auto-approved) while the platform charged it as API units (50). Six
 * calls under a day ceiling of 20 were charged 300. Now the quote is the dearer reading, 50, and the per-call
 * ceiling refuses it before anything is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billablePosts } from '../helpers/examples.js';
import { type Harness, startHarness, structured } from '../helpers/harness.js';

describe('a bare catalog price under a day ceiling of 20 (issue 27)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: { confirm: { mode: 'never' }, maxCreditsPerCall: 20, maxCreditsPerDay: 20 } });
  });
  afterAll(() => h?.close());

  it('six calls of "0.5 per generation": quoted 50 each, none sent, nothing charged', async () => {
    const account = h.sim.accounts.get(h.sim.apiKey)!;
    const before = account.credits;
    for (let i = 0; i < 6; i++) {
      const r = await h.call('run_model', { model: 'bare-1-gen', params: { prompt: `a lake ${i}` } }, { raw: true });
      const s = structured(r) as { status?: string } | undefined;
      expect(['submitted', 'completed'], JSON.stringify(r)).not.toContain(s?.status);
      // The refusal names the quote: 50 credits (0.5 API units), above the ceiling of 20.
      expect(JSON.stringify(r)).toMatch(/\b50\b/);
    }
    expect(billablePosts(h.sim)).toBe(0);
    expect(account.credits).toBe(before);
  });

  it('the spec\'s own wording "0.5 for 10 seconds and 1.0 for 15 seconds" is quoted 50 and 100', async () => {
    const q = await startHarness({ config: { confirm: { mode: 'never' }, maxCreditsPerCall: 1000 } });
    try {
      for (const [duration, credits] of [
        [10, 50],
        [15, 100],
      ] as const) {
        const r = await q.call(
          'run_model',
          { model: `${q.sim.vendors.D}-video-t2v`, params: { prompt: 'a lake', duration } },
          { raw: true },
        );
        expect(structured(r)).toMatchObject({ status: 'submitted', estimate: { credits, bounded: true } });
      }
    } finally {
      await q.close();
    }
  });
});
