/**
 * The spool's edges found by the issue 19 review, each a test that failed before its fix. The store is a real
 * SQLite store; "down" is a wrapper that makes its calls throw as an unreachable database does (the real network
 * faults are test/durability/store-faults.test.ts, through a TCP proxy in front of PostgreSQL).
 */
import { mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobRef } from '../../src/jobs/handle.js';
import { resolveJob } from '../../src/jobs/owner.js';
import { evaluateAdmission } from '../../src/paid/admission.js';
import { withSpool } from '../../src/store/spool.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { AdmitRules, Store } from '../../src/store/types.js';

const log = { warn: () => {}, info: () => {} };
const rules = (): AdmitRules => ({
  maxCreditsPerCall: 2000,
  maxCreditsPerDay: 10000,
  dayStart: new Date(Date.now() - 1000),
});
const intent = (owner: string | undefined, fingerprint: string) => ({
  tool: 'create_talking_video',
  kind: 'actor_video' as const,
  fingerprint,
  summary: 's',
  estimate: { credits: 100, api_units: 1, basis: 't', bounded: true },
  consent: 'policy' as const,
  owner,
});
const ref = (id: string) => ({ kind: 'actor_video', id }) as JobRef;

/** A real store whose calls can be made to fail as an unreachable database's do, or to fail after committing. */
function faulty(inner: Store) {
  const st = { down: false, commitThenThrow: false };
  const store = new Proxy(inner, {
    get(target, key) {
      const v = (target as unknown as Record<string | symbol, unknown>)[key];
      if (typeof v !== 'function') return v;
      return async (...args: unknown[]) => {
        if (st.down && key !== 'close') throw new Error('connect ECONNREFUSED (store down)');
        const r = await (v as (...x: unknown[]) => unknown).apply(target, args);
        if (st.commitThenThrow && key === 'settle') throw new Error('Connection terminated (after COMMIT)');
        return r;
      };
    },
  });
  return { store, st };
}

async function admitted(s: Store, owner: string | undefined, fp: string) {
  const a = await s.admit(intent(owner, fp), rules(), evaluateAdmission);
  if (!a.admitted) throw new Error(`not admitted: ${a.reason}`);
  return a.record;
}

describe('spool edges', () => {
  it("while the store is away, another caller's job is never answered as nobody's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-edge-'));
    const { store, st } = faulty(await openSqliteStore(dir));
    const s = withSpool(store, join(dir, 'spool'), log, { replayEveryMs: 1e9 });
    const alices = await admitted(s, 'alice', 'fa');
    await s.settle(alices.id, {
      outcome: 'submitted',
      handle: 'actor_video:vid_A',
      ref: ref('vid_A'),
      status: 'processing',
    });
    await expect(resolveJob(s, 'bob', ref('vid_A'), 'handle')).rejects.toThrow(/no such job/);
    const bobs = await admitted(s, 'bob', 'fb');
    st.down = true;
    await s.settle(bobs.id, {
      outcome: 'submitted',
      handle: 'actor_video:vid_B',
      ref: ref('vid_B'),
      status: 'processing',
    });
    // Alice's job: the store's error, not "nobody's job" (which the poller would read for Bob).
    await expect(resolveJob(s, 'bob', ref('vid_A'), 'handle')).rejects.toThrow(/ECONNREFUSED/);
    // Bob's own spooled job is still his to follow.
    expect((await resolveJob(s, 'bob', ref('vid_B'), 'handle')).rec?.id).toBe(bobs.id);
    await s.close();
  });

  it('an entry the store has no record of is set aside; the others still land', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-edge-'));
    const { store, st } = faulty(await openSqliteStore(dir));
    const sp = join(dir, 'spool');
    mkdirSync(sp, { recursive: true });
    const ghost = { v: 1, id: '00000000-0000-4000-8000-000000000000', settlement: { outcome: 'submitted' }, at: '' };
    writeFileSync(join(sp, '999999-dead.jsonl'), `${JSON.stringify(ghost)}\n`);
    // Left by a process gone long ago: its heartbeat (the mtime) is old (spool-liveness.ts).
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(join(sp, '999999-dead.jsonl'), old, old);
    const s = withSpool(store, sp, log, { replayEveryMs: 1e9 });
    const rec = await admitted(s, undefined, 'fa');
    st.down = true;
    await s.settle(rec.id, {
      outcome: 'submitted',
      handle: 'actor_video:vid_C',
      ref: ref('vid_C'),
      status: 'processing',
    });
    st.down = false;
    expect(await s.replay()).toBe(0);
    expect((await store.get(rec.id))?.outcome).toBe('submitted');
    expect(readdirSync(sp).some((f) => f.endsWith('.jsonl.dead'))).toBe(true);
    await s.close();
  });

  it('a settle that committed but reported failure is not replayed over a newer observation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-edge-'));
    const { store, st } = faulty(await openSqliteStore(dir));
    const s = withSpool(store, join(dir, 'spool'), log, { replayEveryMs: 1e9 });
    const rec = await admitted(s, undefined, 'fa');
    st.commitThenThrow = true;
    await s.settle(rec.id, {
      outcome: 'submitted',
      handle: 'actor_video:vid_D',
      ref: ref('vid_D'),
      status: 'processing',
      outputs: [],
    });
    st.commitThenThrow = false;
    const other = await openSqliteStore(dir);
    await other.observe(rec.id, {
      status: 'completed',
      outputs: [{ url: 'https://cdn.example.com/x.mp4', media: 'video' }],
      creditsCharged: 100,
    });
    await s.replay();
    expect((await other.get(rec.id))?.status).toBe('completed');
    await other.close();
    await s.close();
  });
});
