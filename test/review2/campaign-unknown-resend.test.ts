/**
 * Review 2 (fixed: the campaign is refused, naming the item, before any quote — a campaign's one consent cannot
 * carry a per-item warning, so it fails closed; guard.ts `campaignItemUnsettled`, and admitBundle under its
 * lock). The finding: a campaign with allow_duplicate: true resent past an earlier identical submission whose
 * outcome is unknown, with no person asked and no warning. A single call with allow_duplicate: true in the same situation
 * is never covered by the policy (consent.ts policyCarrier abstains when `earlier` is set) and warns the
 * person (invariant 2). The campaign's precheck and admission look for unsettled records by the CAMPAIGN's
 * fingerprint only (guard.ts precheck / admitRules.unsettled), never by each item's, so the item-level
 * unknown is invisible. Since change 2, allow_duplicate is also the documented way to make several takes,
 * so an agent asking for 2 takes silently lifts the unknown-outcome protection too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
const ARGS = { avatar_id: 'av_ava', voice_script: 'Unknown outcome take.' };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function unknownSingle(harness: Harness): Promise<void> {
  harness.sim.faults.add({ method: 'POST', path: POSTS.path, kind: 'server_error_after_accept', times: 1 });
  const r = await harness.call('create_talking_video', ARGS);
  expect(structured(r).status, text(r)).toBe('unknown');
  expect(harness.sim.log.count(POSTS)).toBe(1);
}

describe('campaign item identical to an unknown-outcome submission', () => {
  it('control: a single call with allow_duplicate is not auto-approved past the unknown one', async () => {
    h = await startHarness({ config: { confirm: { mode: 'never' } } });
    await unknownSingle(h);
    const again = await h.call('create_talking_video', { ...ARGS, allow_duplicate: true });
    expect(structured(again).status).toBe('confirmation_required');
    expect(text(again)).toMatch(/unknown outcome/);
    expect(h.sim.log.count(POSTS)).toBe(1);
  });

  it('a campaign with allow_duplicate (two takes) past the unknown one: refused by name under a policy, nothing sent', async () => {
    h = await startHarness({ config: { confirm: { mode: 'never' } } });
    await unknownSingle(h);
    const item = { tool: 'create_talking_video', arguments: ARGS };
    const r = await h.call('create_campaign', { items: [item, item], allow_duplicate: true });
    expect(r.isError, text(r)).toBe(true);
    expect(text(r)).toMatch(/items\[0\].*identical to a job whose outcome is unknown/);
    await new Promise((res) => setTimeout(res, 500));
    expect(h.sim.log.count(POSTS)).toBe(1);
  });

  it('with explicit consent: no quote is offered past the unknown one; refused naming its handle', async () => {
    h = await startHarness({ config: { confirm: { mode: 'always' } } });
    h.sim.faults.add({ method: 'POST', path: POSTS.path, kind: 'server_error_after_accept', times: 1 });
    const q1 = structured(await h.call('create_talking_video', ARGS));
    const first = await h.call('create_talking_video', { ...ARGS, confirmation_token: q1.confirmation_token });
    expect(structured(first).status, text(first)).toBe('unknown');
    const item = { tool: 'create_talking_video', arguments: ARGS };
    const q = await h.call('create_campaign', { items: [item, item], allow_duplicate: true });
    // Never a quote a person could approve without seeing the earlier job: refused, naming it.
    expect(q.isError, text(q)).toBe(true);
    expect(structured(q).confirmation_token).toBeUndefined();
    expect(text(q)).toMatch(/items\[0\].*outcome is unknown \(handle submission:/);
    expect(h.sim.log.count(POSTS)).toBe(1);
  });
});
