/**
 * The event outbox on a real store (both backends run it): every event type is written by the transition that
 * causes it, delivered signed to a loopback receiver that verifies it with the Standard Webhooks library, in order
 * per subject; a receiver that is down for a while hears everything after, under the same webhook-ids.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startEventWorker } from '../../src/events/worker.js';
import { estimate } from '../../src/jobs/envelope.js';
import type { CampaignItemInfo } from '../../src/jobs/store.js';
import { silentLogger } from '../../src/log.js';
import type { AdmitRules, BundleItem, Store } from '../../src/store/types.js';
import { newRecord } from '../helpers/store-helpers.js';
import { decision, judge, newApproval } from '../store/approvals-suite.js';
import { type Receiver, startReceiver } from './receiver.js';

export type OpenStore = () => Promise<Store>;

const DAY = new Date(Date.UTC(2026, 10, 29));
export const rules = (owner: string): AdmitRules => ({
  maxCreditsPerCall: 10_000,
  maxCreditsPerDay: 1_000,
  dayStart: DAY,
  user: { owner, maxCreditsPerDay: 500 },
});
const admitAll = () => undefined;

function campaignInfo(id: string, index: number, total: number): CampaignItemInfo {
  return {
    id,
    fingerprint: `cfp-${id}`,
    index,
    total,
    input: {},
    request: { route: '/v1/x', body: { i: index } },
    varied: {},
    sendBy: new Date(Date.now() + 3_600_000).toISOString(),
  };
}

/** Writes one of every event type through the store's own transitions; returns the owner used. */
export async function writeEveryEvent(s: Store): Promise<string> {
  const owner = 'token:bot:alice';
  // A single call of 450: account 45 %, the person 90 % of 500 → budget.threshold person 80.
  const a = await s.admit(
    newRecord({ owner, ownerName: 'Alice', estimate: estimate(450, 'fixed price'), fingerprint: 'f-a' }),
    rules(owner),
    admitAll,
  );
  if (!a.admitted) throw new Error('not admitted');
  await s.settle(a.record.id, { outcome: 'submitted', handle: 'actor_video:p1:v1', status: 'processing' });
  await s.observe(a.record.id, {
    status: 'completed',
    outputs: [{ url: 'https://cdn.example/v1.mp4', media: 'video' }],
    creditsCharged: 450,
  });
  // A failed one.
  const b = await s.admit(
    newRecord({ owner, estimate: estimate(10, 'fixed price'), fingerprint: 'f-b' }),
    rules(owner),
    admitAll,
  );
  if (!b.admitted) throw new Error('not admitted');
  await s.settle(b.record.id, { outcome: 'submitted', handle: 'actor_video:p1:v2', status: 'processing' });
  await s.observe(b.record.id, { status: 'failed', reason: 'the avatar could not be rendered' });
  // A campaign of 2: one completes, one fails → progress ×2 and completed. 400 more: the account crosses 80 %.
  const cid = randomUUID();
  const items: BundleItem[] = [0, 1].map((i) => ({
    ...newRecord({ owner: 'token:bob', estimate: estimate(200, 'fixed price'), fingerprint: `f-c${i}` }),
    outcome: 'queued' as const,
    campaign: campaignInfo(cid, i, 2),
  }));
  const c = await s.admitBundle(items, { ...rules('token:bob'), user: undefined }, admitAll);
  if (!c.admitted) throw new Error('campaign not admitted');
  for (const [i, rec] of c.records.entries()) {
    await s.claimItem(rec.id, { outcome: 'pending' });
    await s.settle(rec.id, { outcome: 'submitted', handle: `actor_video:p1:c${i}`, status: 'processing' });
    await s.observe(
      rec.id,
      i === 0 ? { status: 'completed', creditsCharged: 200 } : { status: 'failed', reason: 'no' },
    );
  }
  // Approvals: one approved, one expired.
  const now = Date.now();
  const ap = await s.createApproval(newApproval({ requester: owner, createdAt: now, expiresAt: now + 3_600_000 }));
  await s.decideApproval(ap.id, decision('token:lead', { at: now + 1 }), judge);
  await s.createApproval(newApproval({ requester: owner, createdAt: now, expiresAt: now + 1 }));
  await s.expireApprovals(new Date(now + 2));
  return owner;
}

export function outboxSuite(name: string, open: OpenStore): void {
  describe(`${name}: events outbox`, () => {
    let receiver: Receiver | undefined;
    const cleanups: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const c of cleanups.splice(0).reverse()) await c();
      await receiver?.close();
      receiver = undefined;
    });

    it('writes one of every event type, once per transition, and delivers each signed, in order per subject', async () => {
      const s = await open();
      cleanups.push(() => s.close());
      await writeEveryEvent(s);
      const events = await s.events();
      const types = events.map((e) => e.type);
      expect(new Set(types)).toEqual(
        new Set([
          'approval.requested',
          'approval.decided',
          'job.submitted',
          'job.completed',
          'job.failed',
          'campaign.progress',
          'campaign.completed',
          'budget.threshold',
        ]),
      );
      expect(types.filter((t) => t === 'campaign.progress')).toHaveLength(2);
      expect(types.filter((t) => t === 'job.completed')).toHaveLength(2);
      // An observation repeated (a second instance reading the same completion) writes nothing more.
      const first = events.find((e) => e.type === 'job.completed')!;
      const rec = (await s.list({})).find((r) => r.id === first.subject)!;
      await s.observe(rec.id, { status: 'completed', creditsCharged: 450 });
      expect(await s.events()).toHaveLength(events.length);
      const completed = first.body.data as Record<string, unknown>;
      expect(completed).toMatchObject({
        owner: 'token:bot:alice',
        person: { id: 'token:bot:alice', name: 'Alice' },
        bot: 'bot',
        handle: 'actor_video:p1:v1',
        tool: 'create_talking_video',
        charged: 450,
        outputs: [{ url: 'https://cdn.example/v1.mp4', kind: 'video' }],
      });
      const budget = events.filter((e) => e.type === 'budget.threshold').map((e) => e.body.data);
      expect(budget).toContainEqual(
        expect.objectContaining({ scope: 'person', owner: 'token:bot:alice', percent: 80 }),
      );
      expect(budget).toContainEqual(expect.objectContaining({ scope: 'account', percent: 80, limit: 1000 }));
      const progress = events.filter((e) => e.type === 'campaign.progress').map((e) => e.body.data);
      expect(progress.at(-1)).toMatchObject({ done: 1, failed: 1, total: 2, message: '1 of 2 done' });
      const decided = events.filter((e) => e.type === 'approval.decided').map((e) => e.body.data.decision);
      expect(decided.sort()).toEqual(['approved', 'expired']);

      receiver = await startReceiver();
      const worker = startEventWorker({
        store: s,
        endpoints: [{ url: receiver.url, secret: receiver.secret }],
        log: silentLogger,
        retryForMs: 3_600_000,
        tickMs: 60_000,
      });
      cleanups.push(() => worker.close());
      for (let i = 0; i < 10 && receiver.received.length < events.length; i++) await worker.round();
      expect(receiver.badSignatures).toBe(0);
      expect(receiver.received.map((r) => r.id).sort()).toEqual(events.map((e) => e.id).sort());
      // In order per subject: each subject's events arrive in the order they were written.
      for (const subject of new Set(events.map((e) => e.subject))) {
        const written = events.filter((e) => e.subject === subject).map((e) => e.id);
        const arrived = receiver.received.map((r) => r.id).filter((id) => written.includes(id));
        expect(arrived).toEqual(written);
      }
      const log = await s.deliveryLog();
      expect(log.every((l) => l.status === 204)).toBe(true);
      expect((await s.deliverySummary())[0]).toMatchObject({ delivered: events.length, due: 0, dead: 0 });
    });

    it('a receiver down for a while (503, then refusing connections) hears everything after, under the same ids', async () => {
      const s = await open();
      cleanups.push(() => s.close());
      await writeEveryEvent(s);
      const events = await s.events();
      receiver = await startReceiver();
      receiver.mode = '503';
      let clock = Date.now();
      const worker = startEventWorker({
        store: s,
        endpoints: [{ url: receiver.url, secret: receiver.secret }],
        log: silentLogger,
        retryForMs: 3 * 24 * 3_600_000,
        tickMs: 60_000,
        now: () => clock,
      });
      cleanups.push(() => worker.close());
      await worker.round();
      const failedFirst = (await s.deliveryLog()).map((l) => l.eventId);
      expect(failedFirst.length).toBeGreaterThan(0);
      // Refusing connections for 10 minutes of the worker's clock.
      await receiver.stop();
      for (let i = 0; i < 10; i++) {
        clock += 60_000;
        await worker.round();
      }
      expect(receiver.received).toHaveLength(0);
      await receiver.start();
      receiver.mode = 'ok';
      // Back: within a minute (the first hour's backoff cap), everything arrives.
      for (let i = 0; i < 20 && receiver.received.length < events.length; i++) {
        clock += 10_000;
        await worker.round();
      }
      const ids = receiver.received.map((r) => r.id);
      expect(ids.sort()).toEqual(events.map((e) => e.id).sort());
      for (const id of failedFirst) expect(ids).toContain(id);
      const log = await s.deliveryLog(1000);
      expect(log.some((l) => l.status === 503)).toBe(true);
      expect(log.some((l) => l.status === undefined && l.error)).toBe(true);
    });

    it('gives up past the retry window and says so in the log (dead), without blocking later subjects', async () => {
      const s = await open();
      cleanups.push(() => s.close());
      await writeEveryEvent(s);
      receiver = await startReceiver();
      receiver.mode = '503';
      let clock = Date.now();
      const worker = startEventWorker({
        store: s,
        endpoints: [{ url: receiver.url, secret: receiver.secret }],
        log: silentLogger,
        retryForMs: 120_000,
        tickMs: 60_000,
        now: () => clock,
      });
      cleanups.push(() => worker.close());
      for (let i = 0; i < 30; i++) {
        clock += 60_000;
        await worker.round();
      }
      const [sum] = await s.deliverySummary();
      expect(sum?.due).toBe(0);
      expect(sum?.dead).toBe((await s.events()).length);
      expect(sum?.lastError).toBe('HTTP 503');
    });
  });
}
