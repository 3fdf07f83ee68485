/**
 * Hostile review 3 (issue 27 item 4): when the spool cannot be written (a full disk, a read-only or vanished
 * state dir) AND the store is unreachable, `settle` still answers the POST as "Recorded locally (spool) … the
 * store gets it as soon as it is reachable" — while the answer exists only in this process's memory. A restart
 * (kill -9, a deploy, the OOM killer on the same full host) then loses the platform's job id of a charged job,
 * and the agent was told it was safe. Real SQLite store; "down" throws as an unreachable database does.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobRef } from '../../src/jobs/handle.js';
import { evaluateAdmission } from '../../src/paid/admission.js';
import { settleSubmission } from '../../src/paid/settle.js';
import { SPOOLED_NOTE, withSpool } from '../../src/store/spool.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';

const log = { warn: () => {}, info: () => {} };

function faulty(inner: Store) {
  const st = { down: false };
  const store = new Proxy(inner, {
    get(target, key) {
      const v = (target as unknown as Record<string | symbol, unknown>)[key];
      if (typeof v !== 'function') return v;
      return async (...args: unknown[]) => {
        if (st.down && key !== 'close') throw new Error('connect ECONNREFUSED (store down)');
        return (v as (...x: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, st };
}

describe('review3: a spool that could not be written is reported as written', () => {
  it('is said as not recorded anywhere, with the ids to keep (a restart then indeed finds no line)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'review3-spool-nw-'));
    const { store, st } = faulty(await openSqliteStore(dir));
    const sp = join(dir, 'spool');
    const s = withSpool(store, sp, log, { replayEveryMs: 1e9 });
    const a = await s.admit(
      {
        tool: 'create_talking_video',
        kind: 'actor_video',
        fingerprint: 'f1',
        summary: 's',
        estimate: { credits: 100, api_units: 1, basis: 't', bounded: true },
        consent: 'policy',
        owner: undefined,
      },
      { maxCreditsPerCall: 2000, maxCreditsPerDay: 10000, dayStart: new Date(Date.now() - 1000) },
      evaluateAdmission,
    );
    if (!a.admitted) throw new Error('not admitted');
    // The spool cannot be written any more (here: its directory is gone; a full disk fails the same append).
    rmSync(sp, { recursive: true, force: true });
    writeFileSync(sp, '');
    st.down = true;
    // The platform answered the paid POST: job vid_LOST, charged.
    const shown = await s.settle(a.record.id, {
      outcome: 'submitted',
      handle: 'actor_video:vid_LOST',
      ref: { kind: 'actor_video', id: 'vid_LOST' } as JobRef,
      status: 'processing',
    });
    // What the agent is told: not "safe on disk", but the truth, with the ids to keep.
    expect(shown.reason).not.toBe(SPOOLED_NOTE);
    expect(shown.reason).toContain('Not recorded anywhere');
    expect(shown.reason).toContain('vid_LOST');
    expect(shown.reason).toContain('keep this id');
    // And through the paid path's answer (src/paid/settle.ts): the envelope's next step says it first.
    // (the same record settled again through the path: the store and the spool are still unwritable)
    const res = await settleSubmission(
      a.record,
      {
        ref: { kind: 'actor_video', id: 'vid_LOST' } as JobRef,
        status: 'processing',
        requestId: 'req_LOST',
        remote: { id: 'vid_LOST' },
      } as never,
      undefined,
      { jobs: s as never, log: { warn: () => {}, info: () => {}, error: () => {} } as never, settleRetryDelaysMs: [] },
    );
    if (!('envelope' in res)) throw new Error('no envelope');
    expect(res.envelope.next_step).toMatch(/^Not recorded anywhere/);
    expect(res.envelope.next_step).toContain('vid_LOST');
    expect(res.envelope.next_step).toContain('req_LOST');
    // kill -9 (the first process simply stops), the disk is freed, the store is back, the next process starts.
    rmSync(sp, { force: true });
    mkdirSync(sp);
    st.down = false;
    const next = withSpool(await openSqliteStore(dir), sp, log, { replayEveryMs: 1e9 });
    await next.replay();
    // Nothing durable held the answer, and the agent was told so: the record is still the bare intent.
    const rec = await next.get(a.record.id);
    expect(rec?.outcome).toBe('pending');
    await next.close();
  });
});
