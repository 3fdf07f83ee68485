/**
 * Issue 19 item 1 (invariant 3): the platform's answer reaches durable storage, always. PostgreSQL is behind a
 * real TCP fault proxy; the proxy refuses every connection once the call is admitted, so the platform accepts
 * the paid POST and its answer finds no store. Before the spool, `settle` gave up after ~4 s and
 * the store kept a `pending` intent with no platform id for ever. Now the answer is spooled (fsynced) before the
 * tool answers, shown as "recorded locally", and replayed into the store once it is back.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres.js';
import { SPOOLED_NOTE, type SpooledStore, withSpool } from '../../src/store/spool.js';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { startHarness, structured } from '../helpers/harness.js';
import { ADMIN_URL, createTestSchema, dropTestDatabases } from '../store/pg-helper.js';

const POST = { method: 'POST', path: '/video/generate' } as const;
const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
  await dropTestDatabases();
});

describe('the store is refused right after the paid POST', () => {
  it('the job id is spooled before the tool answers, shown as local, and lands in the store once it is back', async () => {
    const url = await createTestSchema();
    const admin = new URL(ADMIN_URL);
    const proxy = await startFaultProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
    proxies.push(proxy);
    let spooled: SpooledStore | undefined;
    let spoolDir = '';
    let armed = true;
    const h = await startHarness({
      // The database goes away once the call is admitted: the POST (to the simulator, not through the proxy)
      // is answered, and its settle finds no store. One fault only: later calls meet a healthy database.
      onPaidStep: (step) => {
        if (step === 'after_admit' && armed) {
          armed = false;
          proxy.set('refuse');
        }
      },
      store: async (stateDir) => {
        spoolDir = join(stateDir, 'spool');
        const pg = await openPostgresStore(proxy.through(url), { timeouts: { connectMs: 500 } });
        // No timed replay in this test: the replay is called when the test says so.
        spooled = withSpool(pg, spoolDir, { warn: () => {}, info: () => {} }, { replayEveryMs: 3_600_000 });
        return spooled;
      },
    });
    try {
      const s = structured(
        await h.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Spooled, never lost.' }),
      );
      expect(h.sim.log.count(POST)).toBe(1);
      expect(s.status).toMatch(/submitted|completed/);
      const handle = String(s.handle);
      expect(handle).toMatch(/^actor_video:/);

      // On disk before the answer: one fsynced line naming the platform id and the request id.
      const lines = readdirSync(spoolDir).flatMap((f) =>
        readFileSync(join(spoolDir, f), 'utf8').split('\n').filter(Boolean),
      );
      expect(lines).toHaveLength(1);
      const entry = JSON.parse(lines[0]!) as { settlement: { handle: string; requestId?: string } };
      expect(entry.settlement.handle).toBe(handle);
      expect(entry.settlement.requestId).toBe(s.request_id);
      expect(spooled!.spooled).toBe(1);

      // The database is back: until the replay lands, reads show the job as recorded locally.
      proxy.set('pass');
      const listed = structured(await h.call('list_jobs', {})).jobs as { handle: string; reason?: string }[];
      expect(listed.find((j) => j.handle === handle)?.reason).toBe(SPOOLED_NOTE);
      // An identical call is refused as a duplicate (the intent is active), with nothing sent.
      const again = await h.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Spooled, never lost.' });
      expect(again.isError).toBe(true);
      expect(h.sim.log.count(POST)).toBe(1);

      expect(await spooled!.replay()).toBe(0);
      const direct = await openPostgresStore(url);
      const rec = (await direct.list()).find((r) => r.handle === handle);
      expect(rec).toMatchObject({
        outcome: 'submitted',
        requestId: s.request_id,
        remote: { id: handle.split(':')[1] },
      });
      await direct.close();
      expect(
        readdirSync(spoolDir).flatMap((f) => readFileSync(join(spoolDir, f), 'utf8').split('\n').filter(Boolean)),
      ).toEqual([]);
    } finally {
      proxy.set('pass');
      await h.close();
    }
  }, 60_000);
});
