/**
 * The sandbox remembers (issue 13): a `--sandbox` server (the built bin, a real child process) is killed with
 * SIGKILL between submit and completion; the next one on the same state dir finds the job in its simulator,
 * not only in its job store: get_job answers (no 404), and wait_for_jobs completes it on the job's own clock.
 * Then `--reset-sandbox` starts clean on both sides. Simulator-level cases: test/sim/persist.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, type SpawnedServer, spawnServer } from '../helpers/spawn-server.js';

let stateDir: string;
const env = () => ({ GENPLAT_STATE_DIR: stateDir, GENPLAT_CONFIRM: 'never' });
const sc = (r: unknown) => ((r as CallToolResult).structuredContent ?? {}) as Record<string, unknown>;
const call = (s: SpawnedServer, name: string, args: Record<string, unknown> = {}) =>
  // The sandbox plays 'demo' timing (jobs take 8-15 s): a wait call may use most of its 45 s.
  s.client.callTool({ name, arguments: args }, { timeout: 60_000 }) as Promise<CallToolResult>;

beforeAll(() => {
  ensureBuilt();
  stateDir = mkdtempSync(join(tmpdir(), 'genplat-sandbox-restart-'));
}, 120_000);
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

describe('a --sandbox server restarted between submit and completion', () => {
  let handle = '';

  it('the next process reads the job and wait_for_jobs completes it', async () => {
    const first = await spawnServer(env(), ['--sandbox']);
    const created = sc(
      await call(first, 'create_talking_video', { avatar_id: 'av_marcus', voice_script: 'Survive the restart.' }),
    );
    expect(created.status).toBe('submitted');
    handle = String(created.handle);
    const before = sc(await call(first, 'get_job', { handle }));
    expect(before.status).toBe('processing');

    // No goodbye: the simulator's state must already be on disk when the POST was answered.
    process.kill(first.pid, 'SIGKILL');
    await first.close().catch(() => {});

    const second = await spawnServer(env(), ['--sandbox']);
    try {
      expect(second.stderr()).toMatch(/state kept in .*simulator\.db \(1 job\(s\) restored\)/);
      const read = await call(second, 'get_job', { handle });
      expect(read.isError, JSON.stringify(read.content)).toBeFalsy();
      expect(['processing', 'completed']).toContain(sc(read).status);
      const listed = sc(await call(second, 'list_jobs')).jobs as { handle: string }[];
      expect(listed.map((j) => j.handle)).toContain(handle);

      let job: { status: string; outputs?: unknown[] } = { status: '' };
      for (let i = 0; i < 4 && job.status !== 'completed' && job.status !== 'failed'; i++) {
        job = (sc(await call(second, 'wait_for_jobs', { handles: [handle] })).jobs as (typeof job)[])[0]!;
      }
      expect(job.status).toBe('completed');
      expect(JSON.stringify(job)).toMatch(/http:\/\/127\.0\.0\.1:\d+\/media\/\w+\.mp4/);
    } finally {
      await second.close();
    }
  }, 150_000);

  it('--reset-sandbox starts clean: no jobs in the store, and the simulator no longer knows the old one', async () => {
    expect(handle).not.toBe('');
    const fresh = await spawnServer(env(), ['--sandbox', '--reset-sandbox']);
    try {
      expect(fresh.stderr()).toContain('SANDBOX: reset');
      const listed = sc(await call(fresh, 'list_jobs')).jobs as unknown[];
      expect(listed).toEqual([]);
      const read = await call(fresh, 'get_job', { handle });
      expect(read.isError).toBe(true);
    } finally {
      await fresh.close();
    }
  }, 60_000);
});
