/**
 * The admission rule alone (`evaluateAdmission`): each rule refuses exactly when its fact says so, in the
 * contract's order. The stores' transactions and the pre-check call this one function (test/store/suite.ts
 * runs it inside both stores; test/paid/one-owner.test.ts checks nobody else decides).
 */
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/jobs/store.js';
import { evaluateAdmission } from '../../src/paid/admission.js';
import type { AdmissionFacts, AdmitRules } from '../../src/store/types.js';

const NOW = new Date('2026-11-26T12:00:00Z');
const rec = (id: string) => ({ id }) as JobRecord;
const base: AdmitRules = { maxCreditsPerCall: 500, maxCreditsPerDay: 1000, dayStart: new Date('2026-11-26T00:00:00Z') };
const facts = (over: Partial<AdmissionFacts> = {}): AdmissionFacts => ({ now: NOW, spentToday: 0, ...over });

describe('evaluateAdmission', () => {
  it.each([
    ['within every limit', 500, facts({ spentToday: 500 }), base, undefined],
    ['above the per-call ceiling', 501, facts(), base, 'per_call'],
    ['NaN is not a price', Number.NaN, facts(), base, 'per_call'],
    ['a negative figure is not a price', -1, facts(), base, 'per_call'],
    ['over the day by one', 101, facts({ spentToday: 900 }), base, 'per_day'],
    [
      "over the caller's budget",
      100,
      facts({ spentByOwner: 201 }),
      { ...base, user: { owner: 'alice', maxCreditsPerDay: 300 } },
      'per_user_day',
    ],
    [
      'an identical active record',
      1,
      facts({ duplicate: rec('d') }),
      { ...base, duplicate: { fingerprint: 'f', owner: undefined } },
      'duplicate',
    ],
    ['a duplicate fact without the rule (allow_duplicate)', 1, facts({ duplicate: rec('d') }), base, undefined],
    [
      'an unsettled identical record',
      1,
      facts({ unsettled: rec('u') }),
      { ...base, unsettled: { fingerprint: 'f', owner: undefined } },
      'unsettled',
    ],
    [
      'the exclusive key is held',
      1,
      facts({ exclusive: rec('x') }),
      { ...base, exclusive: { key: 'k', staleBefore: NOW } },
      'exclusive',
    ],
    ['an expired token (store clock)', 1, facts(), { ...base, nonce: { value: 'n', expiresAt: NOW } }, 'token_used'],
    ['a live token', 1, facts(), { ...base, nonce: { value: 'n', expiresAt: new Date(NOW.getTime() + 1) } }, undefined],
  ] as const)('%s', (_name, credits, f, rules, reason) => {
    expect(evaluateAdmission(credits, f, rules as AdmitRules)?.reason).toBe(reason);
  });

  it('ceilings come before the duplicate rules: a refused call names the limit, not the duplicate', () => {
    const all: AdmitRules = {
      ...base,
      duplicate: { fingerprint: 'f', owner: undefined },
      exclusive: { key: 'k', staleBefore: NOW },
    };
    const f = facts({ spentToday: 990, duplicate: rec('d'), exclusive: rec('x') });
    expect(evaluateAdmission(100, f, all)).toEqual({ reason: 'per_day', limit: 1000, credits: 100, spent: 990 });
    expect(evaluateAdmission(5, f, all)?.reason).toBe('duplicate');
  });
});
