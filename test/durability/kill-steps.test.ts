/**
 * kill -9 at every step of a paid call (issue 10): the built server SIGKILLs itself at a named step
 * (`GENPLAT_TEST_KILL_AT`, test-only, src/kill-steps.ts), then a fresh server starts on the same state dir.
 * Whatever the step: the intent or the job is in the store, nothing is POSTed twice, and the day's spend is
 * right (held for a job that may exist, nothing for one that cannot).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAID_STEPS } from '../../src/kill-steps.js';
import { utcDayStart } from '../../src/paid/guard.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { ensureBuilt, spawnServer } from '../helpers/spawn-server.js';

const TOOL = 'create_talking_video';
const POSTS = { method: 'POST', path: '/video/generate' } as const;

let sim: Simulator;
const base = mkdtempSync(join(tmpdir(), 'genplat-kill-'));
beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ timing: 'test' });
}, 120_000);
afterAll(async () => {
  await sim?.close();
  rmSync(base, { recursive: true, force: true });
});

/** What the store must hold after a crash at `step`: was the intent committed, did the POST go out. */
const EXPECT: Record<(typeof PAID_STEPS)[number], { intent: boolean; posted: boolean }> = {
  before_admit: { intent: false, posted: false },
  in_admit: { intent: false, posted: false },
  after_admit: { intent: true, posted: false },
  after_post: { intent: true, posted: true },
};

describe('kill -9 at each step of a paid call, then restart on the same state dir', () => {
  it.each(PAID_STEPS)(
    'killed at %s',
    async (step) => {
      const dir = join(base, step);
      const env = {
        GENPLAT_BASE_URL: sim.baseUrl,
        GENPLAT_API_KEY: sim.apiKey,
        GENPLAT_CONFIRM: 'never',
        GENPLAT_STATE_DIR: dir,
      };
      sim.jobs.scriptNext({ durationMs: 600_000 }, 2);
      const args = { avatar_id: 'av_marcus', voice_script: `Killed at ${step}.` };
      const before = sim.log.count(POSTS);

      const doomed = await spawnServer({ ...env, GENPLAT_TEST_KILL_AT: step });
      await expect(doomed.client.callTool({ name: TOOL, arguments: args })).rejects.toThrow();
      await doomed.close().catch(() => {});
      expect(sim.log.count(POSTS) - before).toBe(EXPECT[step].posted ? 1 : 0);

      const store = await openSqliteStore(dir);
      const records = await store.list();
      expect(records).toHaveLength(EXPECT[step].intent ? 1 : 0);
      if (EXPECT[step].intent) expect(records[0]).toMatchObject({ outcome: 'pending', tool: TOOL });
      // A job that may exist holds its quote; one that cannot costs nothing.
      expect(await store.spendSince(utcDayStart(Date.now()))).toBe(EXPECT[step].intent ? 100 : 0);
      await store.close();

      const after = await spawnServer(env);
      try {
        const again = (await after.client.callTool({ name: TOOL, arguments: args })) as CallToolResult;
        if (EXPECT[step].intent) {
          // The pending intent blocks a resend: no second POST for a job that may exist.
          expect(again.isError).toBe(true);
          expect(JSON.stringify(again.content)).toMatch(/duplicate/);
          expect(sim.log.count(POSTS) - before).toBe(EXPECT[step].posted ? 1 : 0);
        } else {
          expect((again.structuredContent as { status?: string }).status).toBe('submitted');
          expect(sim.log.count(POSTS) - before).toBe(1);
        }
        const listed = (await after.client.callTool({ name: 'list_jobs', arguments: {} })) as CallToolResult;
        // One job's worth either way: the held intent, or the job sent after restart.
        expect((listed.structuredContent as { spend: { today_credits: number } }).spend.today_credits).toBe(100);
      } finally {
        await after.close();
      }
    },
    60_000,
  );
});
