/**
 * Review 7: an approval rule on the requester's day spend (`when.day_spend_at_least`) counts the person, not the
 * id. Uma spends 350 as `token:uma`, then asks for 350 more as `token:uma2`, which the people file says is her
 * (`also`): her day spend after this call is 700, over the rule's 500, so the call is held for the lead — not sent
 * unapproved because the alias's own spend today is 350. Real HTTP runtime, its store and the simulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PolicyRuntime, shoppableVideo, startPolicyRuntime } from '../approvals/policy-runtime.js';
import { sc, text } from '../http/helpers.js';

const TOKENS = { uma: 'uma-0123456789abcdef', uma2: 'uma2-0123456789abcdef', lead: 'lead-0123456789abcdef' };
let r: PolicyRuntime<keyof typeof TOKENS>;
/** A shoppable video: 350 credits, bounded. */
const BIG = (n: number) => shoppableVideo(`desk setup, alias take ${n}`);

beforeAll(async () => {
  r = await startPolicyRuntime({
    tokens: TOKENS,
    approvals: { rules: [{ when: { day_spend_at_least: 500 }, approvers: ['token:lead'] }] },
    people: 'token:uma: { name: Uma, also: [token:uma2] }\n',
  });
});
afterAll(async () => {
  await r?.close();
});

describe("an approval rule on the requester's day spend", () => {
  it("counts all of the person's ids: the alias's call that takes her past it is held, not sent", async () => {
    const first = await r.clients.uma.call('create_shoppable_video', BIG(1));
    expect(first.isError, text(first)).toBeFalsy();
    expect(sc(first).status, text(first)).not.toBe('approval_required');
    expect(r.posts()).toBe(1);
    const second = await r.clients.uma2.call('create_shoppable_video', BIG(2));
    expect(second.isError, text(second)).toBeFalsy();
    expect(sc(second).status, text(second)).toBe('approval_required');
    expect(r.posts()).toBe(1);
  });
});
