/**
 * The events outbox on PostgreSQL (outbox-suite.ts), and the fleet rules: instances observing one completion at
 * once write one event; three instances delivering from one database deliver every event, never one event by two
 * instances at the same time, and each subject in order.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startEventWorker } from '../../src/events/worker.js';
import { silentLogger } from '../../src/log.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import type { Store } from '../../src/store/types.js';
import { newRecord } from '../helpers/store-helpers.js';
import { createTestSchema, dropTestDatabases } from '../store/pg-helper.js';
import { outboxSuite, rules, writeEveryEvent } from './outbox-suite.js';
import { startReceiver } from './receiver.js';

afterAll(dropTestDatabases);

outboxSuite('PostgreSQL', async () => openPostgresStore(await createTestSchema()));

describe('PostgreSQL fleet: events', () => {
  it('three instances observing the same completions at once write one event per transition', async () => {
    const url = await createTestSchema();
    const stores = await Promise.all([0, 1, 2].map(() => openPostgresStore(url)));
    try {
      const [a] = stores as [Store, Store, Store];
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await a.admit(
          newRecord({ owner: 'token:x', fingerprint: `f${i}` }),
          rules('token:x'),
          () => undefined,
        );
        if (!r.admitted) throw new Error('not admitted');
        await a.settle(r.record.id, { outcome: 'submitted', handle: `actor_video:p:v${i}`, status: 'processing' });
        ids.push(r.record.id);
      }
      await Promise.all(
        ids.flatMap((id) => stores.map((s) => s.observe(id, { status: 'completed', creditsCharged: 100 }))),
      );
      const completed = (await a.events()).filter((e) => e.type === 'job.completed');
      expect(completed.map((e) => e.subject).sort()).toEqual([...ids].sort());
    } finally {
      for (const s of stores) await s.close();
    }
  });

  it('three workers on one database: every event delivered, never by two at once, in order per subject', async () => {
    const url = await createTestSchema();
    const stores = await Promise.all([0, 1, 2].map(() => openPostgresStore(url)));
    const receiver = await startReceiver();
    receiver.delayMs = 20;
    const workers = stores.map((store) =>
      startEventWorker({
        store,
        endpoints: [{ url: receiver.url, secret: receiver.secret }],
        log: silentLogger,
        retryForMs: 3_600_000,
        tickMs: 60_000,
      }),
    );
    try {
      for (let i = 0; i < 3; i++) await writeEveryEvent(stores[i % 3]!);
      const events = await stores[0]!.events();
      for (let i = 0; i < 40; i++) {
        await Promise.all(workers.map((w) => w.round()));
        if (new Set(receiver.received.map((r) => r.id)).size >= events.length) break;
      }
      expect(receiver.badSignatures).toBe(0);
      expect(receiver.maxConcurrentPerId).toBe(1);
      expect([...new Set(receiver.received.map((r) => r.id))].sort()).toEqual(events.map((e) => e.id).sort());
      // Each event once (no lease expired here), and each subject in order.
      expect(receiver.received).toHaveLength(events.length);
      for (const subject of new Set(events.map((e) => e.subject))) {
        const written = events.filter((e) => e.subject === subject).map((e) => e.id);
        expect(receiver.received.map((r) => r.id).filter((id) => written.includes(id))).toEqual(written);
      }
      const holders = new Set((await stores[0]!.deliveryLog(1000)).map((l) => l.holder));
      expect(holders.size).toBeGreaterThan(1);
    } finally {
      for (const w of workers) await w.close();
      await receiver.close();
      for (const s of stores) await s.close();
    }
  });
});
