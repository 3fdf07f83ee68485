/**
 * Issue 9, item 2: a quote no published price backs (`bounded: false`) is never consented to by a policy.
 * `never` and `above:N` auto-approve bounded quotes only; the consent text says the price is unpublished
 * and where the figure comes from.
 */
import { describe, expect, it } from 'vitest';
import type { Config, ConfirmPolicy } from '../../../src/config.js';
import { type Estimate, estimate } from '../../../src/jobs/envelope.js';
import type { JobStore } from '../../../src/jobs/store.js';
import { consentMessage, guardCall } from '../../../src/paid/guard.js';
import { unboundedEstimate } from '../../../src/paid/pricing/estimate.js';

const jobs = {
  readAdmissionFacts: async () => ({ now: new Date(0), spentToday: 0, spentByOwner: 0 }),
  consentKey: async () => Buffer.alloc(32, 7),
} as unknown as JobStore;

const NOW = Date.UTC(2026, 10, 22, 17, 30);

async function decide(confirm: ConfirmPolicy, est: Estimate, elicit?: () => Promise<{ outcome: 'accepted' }>) {
  const config = { maxCreditsPerCall: 2000, maxCreditsPerDay: 10000, confirm, priceTable: {} } as unknown as Config;
  return guardCall(
    { config, jobs, now: () => NOW },
    {
      tool: 'animate_gesture',
      kind: 'gesture',
      request: { route: '/gestures/generate', body: { prompt: 'waves' } },
      estimate: est,
      summary: 'gesture animation',
      owner: undefined,
      token: undefined,
      allowDuplicate: false,
      elicit,
    },
  );
}

const CEILING = unboundedEstimate({ priceTable: {}, maxCreditsPerCall: 2000 }, ['animate_gesture'], 'reported after');
const TABLE = unboundedEstimate(
  { priceTable: { animate_gesture: 150 }, maxCreditsPerCall: 2000 },
  ['animate_gesture'],
  'x',
);

describe('unbounded quotes need explicit consent', () => {
  it.each<[string, ConfirmPolicy]>([
    ['never', { mode: 'never' }],
    ['above:5000 (the figure is under the threshold)', { mode: 'above', credits: 5000 }],
    ['always', { mode: 'always' }],
  ])('policy %s does not auto-approve an unbounded quote', async (_name, policy) => {
    const d = await decide(policy, TABLE);
    expect(d.kind).toBe('answer');
    if (d.kind !== 'answer') return;
    expect(d.envelope).toMatchObject({ status: 'confirmation_required', estimate: { bounded: false, credits: 150 } });
    expect(d.envelope.next_step).toMatch(/publishes no price.*up to 150 credits.*operator's price table/);
  });

  it('the same figure, bounded, is auto-approved by never and above:N', async () => {
    expect((await decide({ mode: 'never' }, estimate(150, 'spec'))).kind).toBe('allow');
    expect((await decide({ mode: 'above', credits: 150 }, estimate(150, 'spec'))).kind).toBe('allow');
  });

  it('the ceiling figure says it is the ceiling', async () => {
    const d = await decide({ mode: 'never' }, CEILING);
    if (d.kind !== 'answer') throw new Error('expected a consent answer');
    expect(d.envelope.next_step).toMatch(/up to 2,000 credits.*per-call ceiling/);
  });

  it('an elicitation (a person answering) may consent, and its text says the price is unpublished', async () => {
    const d = await decide({ mode: 'never' }, CEILING, async () => ({ outcome: 'accepted' }));
    expect(d).toMatchObject({ kind: 'allow', consent: 'elicitation' });
    expect(consentMessage('animate_gesture', CEILING, 'gesture animation')).toMatch(
      /publishes no price.*up to 2,000 credits.*per-call ceiling/,
    );
  });
});
