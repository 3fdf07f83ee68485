/**
 * Review 7 (confirmed, then fixed): a held call re-priced higher after its approval goes back for approval, and once
 * approved again it is sent at the higher figure — but its reservation stayed the admitted quote (`estimate_credits`
 * is fixed at admission) and `stillFits` is a plain read outside the admission lock, so every budget saw the lower
 * figure and admitted other calls into room that was not there. Team ops may spend 550 a week; Carol's held video is
 * admitted at 350, re-priced to 500, approved and sent (its POST answered slowly by the simulator, as a slow
 * platform would). Her next 100-credit call must be refused (500 + 100 > 550); before the fix it was admitted and
 * sent, and the week ended at 600 of 550. The fix (approval-send.ts `raiseReservations`): reserve, then verify —
 * each held item's counted figure is raised to its re-priced one before the ceilings are judged and it is unheld.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PolicyRuntime, shoppableVideo, startPolicyRuntime } from '../approvals/policy-runtime.js';
import { sc, text } from '../http/helpers.js';

const TOKENS = { carol: 'carol-0123456789abcdef', lead: 'lead-0123456789abcdef' };
let r: PolicyRuntime<keyof typeof TOKENS>;
let now = Date.now();
const BIG = (n: number) => shoppableVideo(`desk setup, repriced take ${n}`);

beforeAll(async () => {
  r = await startPolicyRuntime({
    tokens: TOKENS,
    approvals: { rules: [{ when: { credits_at_least: 300 }, approvers: ['token:lead'] }] },
    people: 'token:carol: { name: Carol, groups: [ops] }\n',
    budgets: 'teams:\n  ops: { week: 550 }\n',
    now: () => now,
  });
});
afterAll(async () => {
  r?.sim.faults.clear();
  await r?.close();
});

const decide = (id: string) =>
  r.clients.lead.call('decide_approval', { approval: `approval:${id}`, decision: 'approve' });

describe('a held call re-priced higher and approved again', () => {
  it("reserves the figure it is sent at: the team's next call that no longer fits is refused", async () => {
    const first = await r.clients.carol.call('create_shoppable_video', BIG(1));
    expect(sc(first).status, text(first)).toBe('approval_required');
    const id = String(sc(first).handle).slice('approval:'.length);
    const req = (await r.store.approval(id))!.request as { bundleId: string };
    const [item] = await r.store.bundleItems(req.bundleId);
    const pack = r.sim.data.packs.find((p) => p.value === 'gadgets')!;
    pack.credits.video = '500 credits';
    now += 6 * 60_000; // past the catalog's cache: the price is read again
    // The platform takes its time answering the POST: no figure is reported while the next call is admitted.
    r.sim.faults.add({ method: 'POST', path: '/shopable/videos', kind: 'delay', delayMs: 3_000 });
    expect(sc(await decide(id)).state).toBe('approved');
    const next = (await r.store.get(item!.id))!.held!.reason.slice('approval:'.length);
    expect((await r.store.approval(next))?.quoteCredits).toBe(500);
    expect(sc(await decide(next)).state).toBe('approved');
    // Sent (or being sent) at 500 of the team's 550: another 100 does not fit.
    const small = await r.clients.carol.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Small.' });
    expect(small.isError, text(small)).toBe(true);
    expect(text(small)).toContain("team ops's weekly budget is 550 credits");
  });
});
