/**
 * Issue 27 item 4: kill -9 at any instant after the POST's answer loses nothing. The built server runs as a
 * child process; the test kills it with SIGKILL, then starts a fresh one on the same state dir and store.
 *
 * - During a partition: PostgreSQL sits behind a real TCP fault proxy that freezes the moment the simulator
 *   answers the POST, so the settle waits on a database that says nothing. Before the write-ahead spool the
 *   answer reached the spool only once the store had failed (the statement timeout later); a kill meanwhile lost
 *   the job id for ever. Now the answer is fsynced before the store is asked: the test waits for that line,
 *   kills, heals the network, restarts, and the job id is in the store.
 * - At the spool's named steps (src/kill-steps.ts, SQLite): `answer_spooled` (on disk, store not written) and
 *   `answer_stored` (store written, line not marked done: the replay changes nothing).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { spoolReport } from '../../src/store/spool-journal.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { JobRecord, Store } from '../../src/store/types.js';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { ensureBuilt, spawnServer } from '../helpers/spawn-server.js';
import { ADMIN_URL, createTestSchema, dropTestDatabases } from '../store/pg-helper.js';

const TOOL = 'create_talking_video';
const POSTS = { method: 'POST', path: '/video/generate' } as const;

let sim: Simulator;
/** Called when the simulator answers a request, before the answer is written (sim server.ts `finish`). */
let onAnswer: ((path: string, method: string) => void) | undefined;
const proxies: FaultProxy[] = [];
const base = mkdtempSync(join(tmpdir(), 'genplat-spool-kill-'));
beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ timing: 'test', onRequest: (e) => onAnswer?.(e.path, e.method) });
}, 120_000);
afterAll(async () => {
  for (const p of proxies) await p.close();
  await sim?.close();
  await dropTestDatabases();
  rmSync(base, { recursive: true, force: true });
});

/** Waits for `check` to hold, polling an event source (a file, the store) — bounded, never a fixed sleep. */
async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const spoolLines = (dir: string): string[] => {
  try {
    return readdirSync(join(dir, 'spool'))
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) => readFileSync(join(dir, 'spool', f), 'utf8').split('\n'))
      .filter((l) => l.includes('"settlement"'));
  } catch {
    return [];
  }
};

const submitted = async (store: Store) => {
  const [rec] = await store.list();
  return rec?.outcome === 'submitted' ? rec : undefined;
};

describe('kill -9 after the POST was answered', () => {
  it('during a database partition: the answer is on disk before the store is asked; after restart the job id is in the store', async () => {
    const url = await createTestSchema();
    const admin = new URL(ADMIN_URL);
    const proxy = await startFaultProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
    proxies.push(proxy);
    const dir = join(base, 'partition');
    const env = {
      GENPLAT_BASE_URL: sim.baseUrl,
      GENPLAT_API_KEY: sim.apiKey,
      GENPLAT_CONFIRM: 'never',
      GENPLAT_STATE_DIR: dir,
      GENPLAT_DATABASE_URL: proxy.through(url),
      // The frozen store write waits this long (+2 s client-side) before failing: far beyond the wait below, so
      // only a line written before the store is asked can be seen in time.
      GENPLAT_DB_STATEMENT_TIMEOUT_MS: '300000',
    };
    sim.jobs.scriptNext({ durationMs: 600_000 });
    const args = { avatar_id: 'av_marcus', voice_script: 'Killed during a partition.' };
    const before = sim.log.count(POSTS);
    const doomed = await spawnServer(env);
    onAnswer = (path, method) => {
      if (method === 'POST' && path === POSTS.path) proxy.set('freeze');
    };
    const call = doomed.client.callTool({ name: TOOL, arguments: args }).catch((err: unknown) => err);
    try {
      const line = await until('the POST answer in the spool', () => spoolLines(dir)[0]);
      expect(sim.log.count(POSTS) - before).toBe(1);
      const handle = (JSON.parse(line) as { settlement: { handle: string } }).settlement.handle;
      expect(handle).toMatch(/^actor_video:/);
      process.kill(doomed.pid, 'SIGKILL');
      await call;
    } finally {
      onAnswer = undefined;
      proxy.set('pass');
      await doomed.close().catch(() => {});
    }

    const direct = await openPostgresStore(url);
    try {
      // The killed process never wrote the store: the intent is pending, with no platform id.
      expect((await direct.list()).map((r) => r.outcome)).toEqual(['pending']);
      const after = await spawnServer(env);
      try {
        // Start-up replay: the answer lands.
        const rec: JobRecord = await until('the job id in the store', () => submitted(direct));
        expect(rec.handle).toMatch(/^actor_video:/);
        expect(rec.requestId).toEqual(expect.any(String));
        expect(rec.remote?.id).toBe(rec.handle.split(':')[1]);
        // The same call again: a duplicate of a job that exists, never a second POST.
        const again = (await after.client.callTool({ name: TOOL, arguments: args })) as CallToolResult;
        expect(again.isError).toBe(true);
        expect(sim.log.count(POSTS) - before).toBe(1);
        await until('the spool emptied', () => (spoolReport(join(dir, 'spool')).waiting === 0 ? true : undefined));
      } finally {
        await after.close();
      }
    } finally {
      await direct.close();
    }
  }, 180_000);

  it.each([
    ['answer_spooled', 'pending'],
    ['answer_stored', 'submitted'],
  ] as const)(
    'killed at %s: after restart the job id is in the store once, the spool empty',
    async (step, atKill) => {
      const dir = join(base, step);
      const env = {
        GENPLAT_BASE_URL: sim.baseUrl,
        GENPLAT_API_KEY: sim.apiKey,
        GENPLAT_CONFIRM: 'never',
        GENPLAT_STATE_DIR: dir,
      };
      sim.jobs.scriptNext({ durationMs: 600_000 });
      const args = { avatar_id: 'av_marcus', voice_script: `Killed at ${step}.` };
      const before = sim.log.count(POSTS);
      const doomed = await spawnServer({ ...env, GENPLAT_TEST_KILL_AT: step });
      await expect(doomed.client.callTool({ name: TOOL, arguments: args })).rejects.toThrow();
      await doomed.close().catch(() => {});
      expect(sim.log.count(POSTS) - before).toBe(1);
      expect(spoolReport(join(dir, 'spool')).waiting).toBe(1);

      let store = await openSqliteStore(dir);
      const killed = (await store.list())[0];
      expect(killed?.outcome).toBe(atKill);
      const audit = (await store.auditEvents()).length;
      await store.close();

      const after = await spawnServer(env);
      try {
        await until('the spool emptied', () => (spoolReport(join(dir, 'spool')).waiting === 0 ? true : undefined));
        store = await openSqliteStore(dir);
        const rec = (await store.list())[0];
        expect(rec).toMatchObject({ outcome: 'submitted', handle: expect.stringMatching(/^actor_video:/) });
        // Replayed once at most: a record the store already had is not written again.
        if (atKill === 'submitted') {
          expect(rec?.updatedAt).toBe(killed?.updatedAt);
          expect((await store.auditEvents()).length).toBe(audit);
        }
        await store.close();
        expect(sim.log.count(POSTS) - before).toBe(1);
      } finally {
        await after.close();
      }
    },
    60_000,
  );
});
