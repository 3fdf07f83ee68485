/**
 * Issue 27 item 4: a spool line is a file on disk, read back by the next process. What the store refuses (a
 * constraint, a tampered line) goes to a dead-letter file, named by `doctor`, and the lines behind it still
 * land; what an overlay shows of a line is its settlement fields only, never an owner, a quote or a summary.
 * Real stores: SQLite in a temp dir, PostgreSQL from the test helpers.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/doctor.js';
import { type JobRef, jobKey } from '../../src/jobs/handle.js';
import { evaluateAdmission } from '../../src/paid/admission.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { SPOOLED_NOTE, withSpool } from '../../src/store/spool.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { createTestSchema, dropTestDatabases } from '../store/pg-helper.js';
import { intent, rules } from '../store/suite.js';

const log = { warn: () => {}, info: () => {} };
const ref = (id: string) => ({ kind: 'actor_video', id }) as JobRef;
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ timing: 'test' });
});
afterAll(async () => {
  await sim?.close();
  await dropTestDatabases();
});

async function admitted(s: Store, owner: string | undefined, fingerprint: string) {
  const a = await s.admit(intent({ owner, fingerprint }), rules({ dayStart: new Date(0) }), evaluateAdmission);
  if (!a.admitted) throw new Error(`not admitted: ${a.reason}`);
  return a.record;
}

/** A real store whose `settle` fails as an unreachable database's does, while reads still answer. */
function settleDown(inner: Store) {
  const st = { down: true };
  const store = new Proxy(inner, {
    get(target, key) {
      const v = (target as unknown as Record<string | symbol, unknown>)[key];
      if (typeof v !== 'function') return v;
      return async (...args: unknown[]) => {
        if (st.down && key === 'settle') throw new Error('connect ECONNREFUSED (store down)');
        return (v as (...x: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, st };
}

/**
 * A journal a dead process left in `spool` (pid 999999: not running), its heartbeat (the mtime) an hour old: a
 * pid alone never makes a journal takeable (spool-liveness.ts).
 */
function deadJournal(spool: string, lines: unknown[]): void {
  mkdirSync(spool, { recursive: true });
  const file = join(spool, '999999-left.jsonl');
  writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  const old = new Date(Date.now() - 3_600_000);
  utimesSync(file, old, old);
}

const answer = (id: string, vid: string, extra: Record<string, unknown> = {}) => ({
  v: 1,
  id,
  key: jobKey(ref(vid)),
  settlement: { outcome: 'submitted', handle: `actor_video:${vid}`, ref: ref(vid), status: 'processing', ...extra },
  at: '',
});

async function doctorOut(env: Record<string, string>): Promise<string> {
  const out: string[] = [];
  await runDoctor({
    argv: ['doctor'],
    env: { GENPLAT_API_KEY: sim.apiKey, GENPLAT_BASE_URL: sim.baseUrl, ...env },
    out: (l) => out.push(l),
    timeoutMs: 5000,
  });
  return out.join('\n');
}

const deadFiles = (spool: string) => readdirSync(spool).filter((f) => f.endsWith('.jsonl.dead'));

describe('spool lines read back from disk', () => {
  it('the overlay shows only settlement fields: an owner, quote or summary in a line is never shown or stored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-dl-'));
    const real = await openSqliteStore(dir);
    const rec = await admitted(real, 'alice', 'fa');
    const spool = join(dir, 'spool');
    deadJournal(spool, [
      {
        ...answer(rec.id, 'vid_T', { owner: 'mallory', summary: 'TAMPERED', tool: 'evil', consent: 'token' }),
        record: { ...rec, owner: 'mallory', summary: 'TAMPERED' },
      },
    ]);
    const { store, st } = settleDown(real);
    const s = withSpool(store, spool, log, { replayEveryMs: 1e9 });
    expect(await s.replay()).toBe(1);
    const shown = (await s.list()).find((r) => r.id === rec.id);
    expect(shown).toMatchObject({
      handle: 'actor_video:vid_T',
      owner: 'alice',
      summary: rec.summary,
      tool: rec.tool,
      consent: rec.consent,
      estimate: rec.estimate,
      reason: SPOOLED_NOTE,
    });
    expect((await s.get('actor_video:vid_T'))?.owner).toBe('alice');
    st.down = false;
    expect(await s.replay()).toBe(0);
    expect(await real.get(rec.id)).toMatchObject({
      outcome: 'submitted',
      handle: 'actor_video:vid_T',
      owner: 'alice',
      summary: rec.summary,
      consent: rec.consent,
    });
    await s.close();
  });

  it('SQLite: a tampered line goes to the dead-letter file, the next line lands, doctor names the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-dl-'));
    const real = await openSqliteStore(dir);
    const a = await admitted(real, undefined, 'fa');
    const b = await admitted(real, undefined, 'fb');
    const spool = join(dir, 'spool');
    // A charge that is not a number: SQLite would store the text, and MAX() would then rank it above any figure.
    deadJournal(spool, [answer(a.id, 'vid_A', { creditsCharged: 'lots' }), answer(b.id, 'vid_B')]);
    const s = withSpool(real, spool, log, { replayEveryMs: 1e9 });
    expect(await s.replay()).toBe(0);
    expect((await real.get(b.id))?.outcome).toBe('submitted');
    expect((await real.get(a.id))?.outcome).toBe('pending');
    expect(await real.spendSince(new Date(0))).toBe(200);
    const [dead] = deadFiles(spool);
    expect(dead).toBeDefined();
    expect(readFileSync(join(spool, dead!), 'utf8')).toContain(a.id);
    await s.close();
    const report = await doctorOut({ GENPLAT_STATE_DIR: dir });
    expect(report).toContain(
      `✗ spool: dead-letter file ${join(spool, dead!)} holds 1 POST answer(s) the store refused`,
    );
    expect(report).toMatch(/rename the file to end in \.jsonl/);
  });

  it('PostgreSQL: a line the store refuses goes to the dead-letter file, the next line lands, doctor names the file', async () => {
    const url = await createTestSchema();
    const dir = mkdtempSync(join(tmpdir(), 'spool-dl-'));
    const real = await openPostgresStore(url);
    const a = await admitted(real, undefined, 'fa');
    const b = await admitted(real, undefined, 'fb');
    const spool = join(dir, 'spool');
    // A well-formed line PostgreSQL refuses: text columns cannot hold U+0000 (SQLSTATE 22021, not "unreachable").
    deadJournal(spool, [answer(a.id, 'vid\u0000A'), answer(b.id, 'vid_B')]);
    const s = withSpool(real, spool, log, { replayEveryMs: 1e9 });
    expect(await s.replay()).toBe(0);
    expect((await real.get(b.id))?.outcome).toBe('submitted');
    expect((await real.get(a.id))?.outcome).toBe('pending');
    const [dead] = deadFiles(spool);
    expect(dead).toBeDefined();
    const line = JSON.parse(readFileSync(join(spool, dead!), 'utf8').trim()) as { id: string; refused: string };
    expect(line.id).toBe(a.id);
    expect(line.refused).toMatch(/0x00|\\u0000|invalid byte sequence/);
    await s.close();
    const report = await doctorOut({ GENPLAT_STATE_DIR: dir, GENPLAT_DATABASE_URL: url });
    expect(report).toContain(
      `✗ spool: dead-letter file ${join(spool, dead!)} holds 1 POST answer(s) the store refused`,
    );
  });
});
