/**
 * Issue 28 item 5, the read side: what the requester (and the approvers, and nobody else) sees of a call held for
 * approval, through the real tools over a real client in both eras. The held state is made as the write side
 * makes it (its contract): a campaign admitted with its items `queued`, each held with `held.reason =
 * approval:<id>`, and an approval whose `request` names `{ bundleId, itemIds, kind, estimate }`. A decision goes
 * through the real store desk; its `onDecided` does what the write side does (unhold, or release), and a real
 * outbox sweep sends what was approved to the simulator.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { approvalHandle, newApprovalId } from '../../src/approvals/handle.js';
import { storeApprovalDesk } from '../../src/approvals/store-desk.js';
import { estimate } from '../../src/jobs/envelope.js';
import type { JobRecord } from '../../src/jobs/store.js';
import type { PeopleDirectory } from '../../src/people/people-file.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { sweepOnce } from '../campaigns/sweep-once.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
const HOUR = 3_600_000;
const PEOPLE: PeopleDirectory = new Map([
  ['token:lead', { name: 'Lena Lead', groups: [] }],
  ['token:alice', { name: 'Alice Asker', groups: [] }],
]);
const ONE = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Held call.' } }],
};
const THREE = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Held campaign.' } }],
  vary: { avatar_id: ['av_ava', 'av_marcus', 'av_lucia'] },
};

interface World {
  sim: Simulator;
  alice: Harness;
  lead: Harness;
  bob: Harness;
  approvalId: string;
  handle: string;
  bundleId: string;
  items: JobRecord[];
}

const opened: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close().catch(() => {});
});

/**
 * Alice's call (`kind`), admitted and held for Lena's approval; Lena and Bob (who is neither) on the same store.
 * Alice's own process stops after the admission, so nothing of hers is sent unless a sweep sends it.
 */
async function heldWorld(
  kind: 'call' | 'campaign',
  times: { createdAt?: number; expiresAt?: number } = {},
): Promise<World> {
  const sim = await startSimulator({ timing: 'test' });
  opened.push(() => sim.close());
  const stateDir = await mkdtemp(join(tmpdir(), 'genplat-approval-views-'));
  opened.push(() => rm(stateDir, { recursive: true, force: true }));
  const as = async (owner: string, stopAfterAdmit = false) => {
    const h = await startHarness({
      sim,
      stateDir,
      owner,
      config: { people: PEOPLE },
      ...(stopAfterAdmit
        ? {
            onPaidStep: (step) => {
              if (step === 'after_admit') throw new Error('stopped after the admission (test)');
            },
          }
        : {}),
    });
    opened.push(() => h.close());
    return h;
  };
  const alice = await as('token:alice', true);
  expect((await alice.call('create_campaign', kind === 'call' ? ONE : THREE)).isError).toBe(true);
  const queued = (await alice.jobs.list({})).filter((r) => r.outcome === 'queued');
  expect(queued).toHaveLength(kind === 'call' ? 1 : 3);
  const bundleId = queued[0]!.campaign!.id;
  const approvalId = newApprovalId();
  const handle = approvalHandle(approvalId);
  const held = { since: new Date().toISOString(), reason: handle };
  const items: JobRecord[] = [];
  for (const r of queued) items.push((await alice.jobs.claimItem(r.id, { held }))!);
  const quote = items.reduce((s, r) => s + (r.estimate?.credits ?? 0), 0);
  const now = Date.now();
  await alice.jobs.createApproval({
    id: approvalId,
    requester: 'token:alice',
    tool: kind === 'call' ? 'create_talking_video' : 'create_campaign',
    request: {
      bundleId,
      itemIds: items.map((r) => r.id),
      kind,
      tool: 'create_campaign',
      input: kind === 'call' ? ONE : THREE,
      fingerprint: items[0]!.campaign!.fingerprint,
      estimate: estimate(quote, `sum of ${items.length} item quotes`),
      card: {},
    },
    requirements: [{ rule: 'big spend', approvers: ['token:lead'], required: 1 }],
    approvers: ['token:lead'],
    rules: ['big spend'],
    campaignId: bundleId,
    quoteCredits: quote,
    createdAt: times.createdAt ?? now,
    expiresAt: times.expiresAt ?? now + HOUR,
  });
  return {
    sim,
    alice,
    lead: await as('token:lead'),
    bob: await as('token:bob'),
    approvalId,
    handle,
    bundleId,
    items,
  };
}

/** Lena decides through the store desk; `onDecided` does what the write side does with the held items. */
async function decide(w: World, decision: 'approve' | 'decline') {
  const desk = storeApprovalDesk(w.lead.jobs, {
    onDecided: async (_a, outcome) => {
      for (const item of w.items) {
        const patch =
          outcome.state === 'approved'
            ? { held: undefined }
            : { outcome: 'rejected' as const, status: 'failed' as const, reason: 'released: declined by an approver' };
        expect(await w.lead.jobs.claimItem(item.id, patch, 'held')).toBeDefined();
      }
    },
  });
  const r = await desk.decideAs(w.approvalId, { id: 'token:lead', carrier: 'tool' }, decision);
  expect(r.ok).toBe(true);
}

/** A wait_for_jobs call, and a promise of its first progress notification: the wait has looked once. */
function waitStarted(h: Harness, handles: string[]) {
  let looked!: () => void;
  const first = new Promise<void>((resolve) => {
    looked = resolve;
  });
  const answer = h.call('wait_for_jobs', { handles, max_wait_s: 45 }, { onprogress: () => looked() });
  return { first, answer };
}

/** A resource's JSON, as a client reads it. */
async function readJson(h: Harness, uri: string): Promise<Record<string, unknown>> {
  const r = await h.client.readResource({ uri });
  return JSON.parse((r.contents[0] as { text: string }).text) as Record<string, unknown>;
}

const WAITING = /^Nothing was sent yet: waiting for approval by Lena Lead \(token:lead\) until \d{4}-\d\d-\d\dT/;

describe('a call held for approval, as its requester sees it', () => {
  it('pending: get_job, wait_for_jobs and list_jobs say approval_required, who, until when; held handles too', async () => {
    const w = await heldWorld('campaign');
    const env = structured(await w.alice.call('get_job', { handle: w.handle }));
    expect(env).toMatchObject({
      status: 'approval_required',
      handle: w.handle,
      kind: 'campaign',
      estimate: { credits: expect.any(Number), bounded: true },
      details: {
        approval: w.approvalId,
        approval_state: 'pending',
        approvers: [{ id: 'token:lead', name: 'Lena Lead' }],
        waiting_on: ['token:lead'],
        requester: 'token:alice',
        rules: ['big spend'],
        campaign: w.bundleId,
        items: 3,
      },
    });
    expect(env.next_step).toMatch(WAITING);
    expect((env.details as Record<string, unknown>).awaiting_your_decision).toBeUndefined();
    expect(env.reason).toMatch(/^Nothing was sent yet: waiting for approval by Lena Lead \(token:lead\) until /);
    expect(Date.parse(env.expires_at as string)).toBeGreaterThan(Date.now());
    expect((env.estimate as { credits: number }).credits).toBeGreaterThan(0);

    // The held campaign's and item's own handles say the same, not "queued".
    const campaign = structured(await w.alice.call('get_job', { handle: `campaign:${w.bundleId}` }));
    expect(campaign).toMatchObject({ status: 'approval_required', handle: `campaign:${w.bundleId}` });
    expect(campaign.next_step).toMatch(WAITING);
    const item = structured(await w.alice.call('get_job', { handle: w.items[0]!.handle }));
    expect(item).toMatchObject({ status: 'approval_required', handle: w.items[0]!.handle });
    expect(item.next_step).toMatch(WAITING);

    // The job and campaign resources say the same.
    const resource = await readJson(w.alice, `genplat://jobs/${w.handle}`);
    expect(resource).toMatchObject({ status: 'approval_required', handle: w.handle });
    expect(resource.next_step).toMatch(WAITING);
    const campaignResource = await readJson(w.alice, `genplat://campaigns/${w.bundleId}`);
    expect(campaignResource).toMatchObject({ status: 'approval_required', handle: `campaign:${w.bundleId}` });

    // A bounded wait returns the pending envelope at its timeout.
    const waited = structured(await w.alice.call('wait_for_jobs', { handles: [w.handle], max_wait_s: 1 }));
    expect(waited).toMatchObject({ done: false, pending: [w.handle], jobs: [{ status: 'approval_required' }] });

    // One row for the request (its items hidden behind it), named by the approval handle.
    const rows = structured(await w.alice.call('list_jobs', {})).jobs as Record<string, unknown>[];
    expect(rows.map((r) => [r.handle, r.status])).toEqual([[w.handle, 'approval_required']]);
    expect(rows[0]!.summary).toMatch(/nothing sent yet: waiting for approval by Lena Lead \(token:lead\) until/);
    expect(rows[0]!.awaiting_your_decision).toBeUndefined();
    const filtered = structured(await w.alice.call('list_jobs', { status: 'approval_required' })).jobs as unknown[];
    expect(filtered).toHaveLength(1);
    expect(w.sim.log.count(POSTS)).toBe(0);
  }, 60_000);

  it('pending: the approver sees it awaiting their decision; a third person gets not-found everywhere', async () => {
    const w = await heldWorld('call');
    const lead = structured(await w.lead.call('get_job', { handle: w.handle }));
    expect(lead).toMatchObject({
      status: 'approval_required',
      kind: w.items[0]!.kind,
      details: { awaiting_your_decision: true },
    });
    const rows = structured(await w.lead.call('list_jobs', {}));
    expect(rows.jobs).toMatchObject([
      { handle: w.handle, status: 'approval_required', awaiting_your_decision: true, tool: 'create_talking_video' },
    ]);
    expect((rows.jobs as { summary: string }[])[0]!.summary).toContain('Alice Asker (token:alice) asks');
    expect(rows.next_step).toContain('await your decision');

    const got = await w.bob.call('get_job', { handle: w.handle });
    expect(got.isError).toBe(true);
    expect(text(got)).toContain('no such job for this caller');
    const waited = await w.bob.call('wait_for_jobs', { handles: [w.handle], max_wait_s: 1 });
    expect(waited.isError).toBe(true);
    expect(text(waited)).toContain('no such job for this caller');
    expect(structured(await w.bob.call('list_jobs', {})).jobs).toEqual([]);
    await expect(readJson(w.bob, `genplat://jobs/${w.handle}`)).rejects.toThrow(/no such job for this caller/);
  }, 60_000);

  it('approved (a campaign): a wait started before the decision follows it to completed; get_job follows too', async () => {
    const w = await heldWorld('campaign');
    const waiting = waitStarted(w.alice, [w.handle]);
    await waiting.first;
    await decide(w, 'approve');
    await sweepOnce(w.alice);
    const r = structured(await waiting.answer);
    expect(r.done).toBe(true);
    const env = (r.jobs as Record<string, unknown>[])[0]!;
    expect(env).toMatchObject({
      status: 'completed',
      handle: `campaign:${w.bundleId}`,
      kind: 'campaign',
      details: { approval: w.approvalId, approval_state: 'approved' },
    });
    expect((env.outputs as unknown[]).length).toBe(3);
    expect(w.sim.log.count(POSTS)).toBe(3);
    const got = structured(await w.alice.call('get_job', { handle: w.handle }));
    expect(got).toMatchObject({ status: 'completed', handle: `campaign:${w.bundleId}` });
    // No approval row is left: the campaign's own row stands.
    const rows = structured(await w.alice.call('list_jobs', {})).jobs as Record<string, unknown>[];
    expect(rows.map((x) => [x.handle, x.status])).toEqual([[`campaign:${w.bundleId}`, 'completed']]);
    expect(structured(await w.lead.call('list_jobs', {})).jobs).toEqual([]);
  }, 90_000);

  it("approved (a call): the approval handle follows the call's job to completed, as get_job on the job", async () => {
    const w = await heldWorld('call');
    // The held item's own handle, waited on before the decision, follows it too.
    const byItem = waitStarted(w.alice, [w.items[0]!.handle]);
    await byItem.first;
    await decide(w, 'approve');
    await sweepOnce(w.alice);
    const r = structured(await w.alice.call('wait_for_jobs', { handles: [w.handle], max_wait_s: 45 }));
    const env = (r.jobs as Record<string, unknown>[])[0]!;
    const sent = (await w.alice.jobs.get(w.items[0]!.id))!;
    const item = structured(await byItem.answer);
    expect(item).toMatchObject({ done: true, jobs: [{ status: 'completed', handle: sent.handle }] });
    expect(env).toMatchObject({ status: 'completed', handle: sent.handle, kind: sent.kind });
    expect(sent.handle).not.toMatch(/^submission:/);
    expect((env.outputs as unknown[]).length).toBeGreaterThan(0);
    const direct = structured(await w.alice.call('get_job', { handle: sent.handle }));
    expect(direct.outputs).toEqual(env.outputs);
    expect(w.sim.log.count(POSTS)).toBe(1);
  }, 90_000);

  it('approved, then re-priced higher and held for a new approval: the old handle shows the new one', async () => {
    const w = await heldWorld('call');
    const first = (await w.alice.jobs.approval(w.approvalId))!;
    const again = await w.alice.jobs.createApproval({ ...first, id: newApprovalId(), createdAt: Date.now() });
    const desk = storeApprovalDesk(w.lead.jobs, {
      onDecided: async () => {
        // What the write side does when the approved call now costs more: the items go back, held, for a new one.
        const held = { since: new Date().toISOString(), reason: approvalHandle(again.id) };
        expect(await w.lead.jobs.claimItem(w.items[0]!.id, { held }, 'held')).toBeDefined();
      },
    });
    expect((await desk.decideAs(w.approvalId, { id: 'token:lead', carrier: 'tool' }, 'approve')).ok).toBe(true);
    const env = structured(await w.alice.call('get_job', { handle: w.handle }));
    expect(env).toMatchObject({
      status: 'approval_required',
      handle: approvalHandle(again.id),
      details: { approval: again.id, approval_state: 'pending' },
    });
    expect(w.sim.log.count(POSTS)).toBe(0);
  }, 60_000);

  it('declined: declined, by whom, nothing sent or charged; a waiting wait_for_jobs ends', async () => {
    const w = await heldWorld('campaign');
    const waiting = waitStarted(w.alice, [w.handle]);
    await waiting.first;
    await decide(w, 'decline');
    const r = structured(await waiting.answer);
    expect(r).toMatchObject({ done: true, pending: [] });
    const env = structured(await w.alice.call('get_job', { handle: w.handle }));
    expect(env).toMatchObject({ status: 'declined', details: { approval_state: 'declined' } });
    expect(env.reason).toBe('Declined by Lena Lead (token:lead); nothing was sent or charged.');
    expect((r.jobs as unknown[])[0]).toMatchObject({ status: 'declined', reason: env.reason });
    await sweepOnce(w.alice);
    expect(w.sim.log.count(POSTS)).toBe(0);
    const rows = structured(await w.alice.call('list_jobs', {})).jobs as Record<string, unknown>[];
    expect(rows.map((x) => x.status)).not.toContain('approval_required');
  }, 60_000);

  it('expired: declined with "expired" and nothing sent, before and after the expiry sweep', async () => {
    const now = Date.now();
    const w = await heldWorld('call', { createdAt: now - 2 * HOUR, expiresAt: now - HOUR });
    const before = structured(await w.alice.call('get_job', { handle: w.handle }));
    expect(before).toMatchObject({ status: 'declined', details: { approval_state: 'expired' } });
    expect(before.reason).toMatch(/^Expired: nobody approved it before .*; nothing was sent or charged\.$/);
    expect(await w.alice.jobs.expireApprovals(new Date())).toEqual([w.approvalId]);
    const after = structured(await w.alice.call('get_job', { handle: w.handle }));
    expect(after).toMatchObject({ status: 'declined', reason: before.reason });
    const rows = structured(await w.alice.call('list_jobs', {})).jobs as Record<string, unknown>[];
    expect(rows.map((x) => x.status)).not.toContain('approval_required');
    expect(structured(await w.lead.call('list_jobs', {})).jobs).toEqual([]);
    expect(w.sim.log.count(POSTS)).toBe(0);
  }, 60_000);
});
