/**
 * The admission rules, written once (issue 18 item 6). `evaluateAdmission` is pure: given the facts a store read
 * (today's spend, the caller's spend, an identical active record, an unsettled one, the exclusive key's holder,
 * the store's clock) and the rules of this call, it answers "admit" (undefined) or the first rule that refuses.
 *
 * Two callers, one rule:
 * - the pre-check before consent (`precheck.ts`) over plain reads (`Store.readAdmissionFacts`), so a person is
 *   never asked to approve a call that will be refused;
 * - each store's admission transaction over facts read under its lock (`Store.admitBundle(items, rules, rule)`
 *   with `evaluateBundleOfOne` or `evaluateCampaignAdmission`, both built on it): what counts, since consent may
 *   take minutes and other calls run meanwhile.
 * The stores only read facts and consume the token's nonce (a unique insert); they decide nothing.
 *
 * Order matters and is the contract: ceilings first (they refuse whatever else is true: per call, the account's
 * day, the person's day, then every other budget of `rules.budgets`: account, person, teams × day, week, month),
 * then the duplicate rules, then the exclusive key, then the token's expiry on the store's clock.
 */
import type { AdmissionFacts, AdmitRefusal, AdmitRules } from '../store/types.js';

export type { AdmissionFacts, AdmitRefusal, AdmitRules };

/** @returns the refusal of the first rule that fails, or undefined: admit. */
export function evaluateAdmission(credits: number, facts: AdmissionFacts, rules: AdmitRules): AdmitRefusal | undefined {
  // A figure the ceilings cannot compare is not a price: NaN passes every `>` test, a negative one lowers
  // the day's spend. Refused as over the per-call ceiling (nothing is sent).
  if (!Number.isFinite(credits) || credits < 0 || credits > rules.maxCreditsPerCall) {
    return { reason: 'per_call', limit: rules.maxCreditsPerCall, credits };
  }
  if (facts.spentToday + credits > rules.maxCreditsPerDay) {
    return { reason: 'per_day', limit: rules.maxCreditsPerDay, credits, spent: facts.spentToday };
  }
  if (rules.user) {
    const mine = facts.spentByOwner ?? 0;
    if (mine + credits > rules.user.maxCreditsPerDay) {
      return {
        reason: 'per_user_day',
        owner: rules.user.owner,
        limit: rules.user.maxCreditsPerDay,
        credits,
        spent: mine,
        ...(rules.user.where !== undefined ? { where: rules.user.where } : {}),
      };
    }
  }
  // Every other budget, in `rules.budgets` order (account, person, then each team; day, week, month). A budget
  // whose spend was not read is refused as full: fail closed (a caller that passes budgets without their facts).
  for (const [i, b] of (rules.budgets ?? []).entries()) {
    const spent = facts.budgetSpent?.[i];
    if (spent === undefined || !(spent + credits <= b.limit)) {
      return {
        reason: 'budget',
        scope: b.scope,
        ...(b.name !== undefined ? { name: b.name } : {}),
        period: b.period,
        since: b.since,
        limit: b.limit,
        credits,
        spent: spent ?? b.limit,
      };
    }
  }
  if (rules.duplicate && facts.duplicate) return { reason: 'duplicate', record: facts.duplicate };
  if (rules.unsettled && facts.unsettled) return { reason: 'unsettled', record: facts.unsettled };
  if (rules.exclusive && facts.exclusive) return { reason: 'exclusive', record: facts.exclusive };
  // An expired token is spent, whatever its HMAC said a moment ago: its nonce row may already be pruned, so the
  // unique insert could succeed a second time. Judged on the admitting instance's clock (the store passes its
  // `now`): instances whose clocks differ by more than NONCE_GRACE_MS (1 h) could disagree.
  if (rules.nonce && rules.nonce.expiresAt.getTime() <= facts.now.getTime()) return { reason: 'token_used' };
  return undefined;
}

/** A single call's admission as a bundle of one (`Store.admitBundle`): exactly `evaluateAdmission` of its quote. */
export function evaluateBundleOfOne(
  items: readonly number[],
  facts: AdmissionFacts,
  rules: AdmitRules,
): AdmitRefusal | undefined {
  // Not one item: no rule of a single call fits it; refused as unpriced (fail closed, nothing written).
  if (items.length !== 1) return { reason: 'per_call', limit: rules.maxCreditsPerCall, credits: Number.NaN };
  return evaluateAdmission(items[0]!, facts, rules);
}

/**
 * The campaign's admission (issue 21), same rule and order: every item against the per-call ceiling (the first
 * item over it is named), then the campaign's total through `evaluateAdmission` (per-day, per-user day,
 * duplicate) with the per-call ceiling lifted for the total alone (it bounds calls, and each item was checked),
 * then each item's exclusive key (an upscale item whose video has an active attempt is named), then the token's
 * expiry. Nothing is admitted unless everything fits.
 */
export function evaluateCampaignAdmission(
  items: readonly number[],
  facts: AdmissionFacts,
  rules: AdmitRules,
): AdmitRefusal | undefined {
  if (items.length === 0) return { reason: 'per_call', limit: rules.maxCreditsPerCall, credits: Number.NaN };
  for (const [item, credits] of items.entries()) {
    const refusal = evaluateAdmission(credits, { now: facts.now, spentToday: 0 }, perCallOnly(rules));
    if (refusal) return { ...refusal, item } as AdmitRefusal;
  }
  const total = items.reduce((sum, c) => sum + c, 0);
  const totalRules = { ...rules, maxCreditsPerCall: Number.POSITIVE_INFINITY };
  const refusal = evaluateAdmission(total, facts, { ...totalRules, nonce: undefined });
  if (refusal) return refusal;
  for (const [item, record] of (facts.itemExclusive ?? []).entries()) {
    if (rules.itemExclusive?.[item] && record) return { reason: 'exclusive', record, item };
  }
  return evaluateAdmission(total, facts, totalRules);
}

/**
 * Two items of one campaign with the same fingerprint (tool + exact request) would be two jobs and two charges
 * for one variant — the duplicate rule, inside the campaign (review finding 2 of issue 21). Refused before the
 * quote unless the call says `allow_duplicate` (several takes of the same on purpose, consented as such).
 * Also used over the items' exclusive keys (undefined: none), where no flag overrides it.
 * @returns the first repeated item and the item it repeats, or undefined.
 */
export function firstIdenticalItem(
  fingerprints: readonly (string | undefined)[],
): { repeat: number; of: number } | undefined {
  const seen = new Map<string, number>();
  for (const [index, fp] of fingerprints.entries()) {
    if (fp === undefined) continue;
    const of = seen.get(fp);
    if (of !== undefined) return { repeat: index, of };
    seen.set(fp, index);
  }
  return undefined;
}

/** The rules with only the per-call ceiling in force (an item alone, before the campaign's total). */
function perCallOnly(rules: AdmitRules): AdmitRules {
  return {
    maxCreditsPerCall: rules.maxCreditsPerCall,
    maxCreditsPerDay: Number.POSITIVE_INFINITY,
    dayStart: rules.dayStart,
  };
}
