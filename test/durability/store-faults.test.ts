/**
 * Issue 19's fault matrix on the store side: PostgreSQL behind a real TCP fault proxy that refuses, holds
 * (accepts, forwards nothing) or freezes (every open connection stops) at each step of a paid call — before
 * admit, inside admit (after the intent's insert, before COMMIT), after admit (before the POST), after the
 * POST (before settle). Whatever happens: the call answers within its bounds; at most one POST; a POST always
 * leaves a handle the agent is given and, once the fault ends, a store record with the platform id and request
 * id; a call refused unsent leaves nothing behind; and the same call repeated never makes a second POST.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PaidStep } from '../../src/kill-steps.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { type SpooledStore, withSpool } from '../../src/store/spool.js';
import { type FaultProxy, type ProxyMode, startFaultProxy } from '../helpers/fault-proxy.js';
import { startHarness, structured } from '../helpers/harness.js';
import { ADMIN_URL, createTestSchema, dropTestDatabases } from '../store/pg-helper.js';

const POST = { method: 'POST', path: '/video/generate' } as const;
const STEPS: PaidStep[] = ['before_admit', 'in_admit', 'after_admit', 'after_post'];
const MODES: Exclude<ProxyMode, 'pass'>[] = ['refuse', 'hold', 'freeze'];
/** Short bounds so a held or frozen database fails a statement in ~1 s, not the 15 s default. */
const TIMEOUTS = { connectMs: 400, statementMs: 600, lockMs: 800, idleInTransactionMs: 600 };

const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
  await dropTestDatabases();
});

describe.each(MODES)('PostgreSQL %s', (mode) => {
  it.each(STEPS)(
    'at %s: ≤ 1 POST, the handle kept, the platform id in the store once the fault ends',
    async (step) => {
      const url = await createTestSchema();
      const admin = new URL(ADMIN_URL);
      const proxy = await startFaultProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
      proxies.push(proxy);
      let spooled: SpooledStore | undefined;
      // One fault per test: the repeated call below must meet a healthy database.
      let armed = true;
      const fault = () => {
        if (!armed) return;
        armed = false;
        proxy.set(mode);
      };
      const h = await startHarness({
        onPaidStep: (at) => {
          if (at === step) fault();
        },
        store: async (stateDir) => {
          const pg = await openPostgresStore(proxy.through(url), {
            timeouts: TIMEOUTS,
            ...(step === 'in_admit' ? { onAdmitWrite: fault } : {}),
          });
          spooled = withSpool(
            pg,
            join(stateDir, 'spool'),
            { warn: () => {}, info: () => {} },
            { replayEveryMs: 3_600_000 },
          );
          return spooled;
        },
      });
      const args = { avatar_id: 'av_ava', voice_script: `Fault ${mode} at ${step}.` };
      try {
        const first = await h.call('create_talking_video', args);
        const posts = h.sim.log.count(POST);
        expect(posts).toBeLessThanOrEqual(1);
        let handle: string | undefined;
        if (posts === 1) {
          // The platform accepted it: the agent holds the handle, whatever the store did.
          expect(first.isError).toBeFalsy();
          handle = String(structured(first).handle);
          expect(handle).toMatch(/^actor_video:/);
        } else if (step === 'in_admit') {
          // The COMMIT went unanswered: "may have been admitted", with the intent's handle to follow (issue 27).
          expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
          expect(structured(first)).toMatchObject({ status: 'unknown', handle: expect.stringMatching(/^submission:/) });
          expect(JSON.stringify(first.content)).not.toMatch(/try again/i);
        } else {
          // Refused before the POST: an error saying nothing was sent.
          expect(first.isError).toBe(true);
        }

        proxy.set('pass');
        expect(await spooled!.replay()).toBe(0);
        const direct = await openPostgresStore(url);
        const records = await direct.list();
        if (handle) {
          const rec = records.find((r) => r.handle === handle);
          expect(rec).toMatchObject({ outcome: 'submitted', requestId: expect.any(String) });
          expect(rec?.remote?.id).toBe(handle.split(':')[1]);
        } else {
          expect(records.filter((r) => r.outcome !== 'rejected')).toEqual([]);
        }
        await direct.close();

        // The same call again: never a second POST (a duplicate when the first was sent; admitted once if not).
        const again = await h.call('create_talking_video', args);
        expect(h.sim.log.count(POST), JSON.stringify(again.content)).toBe(1);
      } finally {
        proxy.set('pass');
        await h.close();
      }
    },
    60_000,
  );
});
