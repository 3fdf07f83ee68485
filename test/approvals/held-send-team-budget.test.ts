/**
 * A held call under a team budget (issue 30) over real HTTP: its quote is reserved under the requester's team at
 * admission, so when the lead approves, the re-check takes the held item's own reservation out of the team's spend
 * (approval-send.ts `stillFits`) and sends it once; a second held call that no longer fits the team's week is
 * refused at admission, naming the team. The team comes from the people file's groups.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sc, text } from '../http/helpers.js';
import { type PolicyRuntime, shoppableVideo, startPolicyRuntime } from './policy-runtime.js';

const TOKENS = { carol: 'carol-0123456789abcdef', lead: 'lead-0123456789abcdef' };
let r: PolicyRuntime<keyof typeof TOKENS>;
/** A shoppable video: 350 credits, bounded (held-send.test.ts checks it). */
const BIG = (n: number) => shoppableVideo(`desk setup, team take ${n}`);

beforeAll(async () => {
  r = await startPolicyRuntime({
    tokens: TOKENS,
    approvals: { rules: [{ when: { credits_at_least: 300 }, approvers: ['token:lead'] }] },
    people: 'token:carol: { name: Carol, groups: [ops] }\n',
    budgets: 'teams:\n  ops: { week: 600 }\n',
  });
});
afterAll(async () => {
  await r?.close();
});

describe('a held call under a team week budget', () => {
  it('is reserved under the team, sent once when approved, and a second one past the week is refused', async () => {
    const first = await r.clients.carol.call('create_shoppable_video', BIG(1));
    expect(sc(first).status, text(first)).toBe('approval_required');
    const id = String(sc(first).handle).slice('approval:'.length);
    const req = (await r.store.approval(id))!.request as { bundleId: string; itemIds: string[] };
    const [item] = await r.store.bundleItems(req.bundleId);
    expect(item?.teams).toEqual(['ops']);
    // 350 reserved of 600: a second 350 does not fit the team's week, refused before anything is held.
    const second = await r.clients.carol.call('create_shoppable_video', BIG(2));
    expect(second.isError).toBe(true);
    expect(text(second)).toContain("team ops's weekly budget is 600 credits");
    expect(text(second)).toContain('350 spent or held this week');
    // Approved: its own reservation is not counted twice, so it still fits and is sent once.
    expect(
      sc(await r.clients.lead.call('decide_approval', { approval: `approval:${id}`, decision: 'approve' })).state,
    ).toBe('approved');
    const end = Date.now() + 20_000;
    let sent = await r.store.get(item!.id);
    while (sent && (sent.outcome === 'queued' || sent.outcome === 'pending') && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 25));
      sent = await r.store.get(item!.id);
    }
    expect(sent?.outcome, JSON.stringify(sent)).toBe('submitted');
    expect(r.posts()).toBe(1);
  });
});
