/**
 * The sandbox remembers (issue 13): a simulator started on a state file finds its key, jobs (still
 * progressing by the clock), balances, projects, custom avatars and upscaled videos after a restart; a reset
 * starts clean; a second live simulator on the same file runs in memory rather than fighting over it; without a
 * file nothing is written. In-process restarts here; the spawned `--sandbox` restart is
 * test/durability/sandbox-restart.test.ts.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StateError } from '../../src/jobs/state-error.js';
import { type CallOptions, call, PUBLIC_IMAGE, type Simulator, startSimulator, waitFor } from './helpers.js';

const base = mkdtempSync(join(tmpdir(), 'genplat-sim-persist-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;
const freshFile = () => join(base, `case-${++n}`, 'simulator.db');

// Each request on its own connection: a restarted simulator often listens on the same port again, and a
// keep-alive socket of the one before could be picked up before its close has been seen (same process here).
const FRESH: CallOptions = { headers: { connection: 'close' } };
const get = (sim: Simulator, path: string, query?: Record<string, string>) =>
  call(sim, 'GET', path, { ...FRESH, query });
const post = (sim: Simulator, path: string, body: unknown) => call(sim, 'POST', path, { ...FRESH, body });

const talk = (sim: Simulator, avatar_id = 'av_marcus') =>
  post(sim, '/video/generate', { avatar_id, voice_script: 'Remember me.' });
const status = async (sim: Simulator, id: string) => (await get(sim, '/video/status', { id })).json;

describe('a simulator on a state file', () => {
  it('comes back with the same key, jobs, balance and project after a restart', async () => {
    const file = freshFile();
    const first = await startSimulator({ stateFile: file });
    expect(first.persistence).toEqual({ mode: 'file', path: file, restoredJobs: 0 });
    first.jobs.scriptNext({ durationMs: 400 });
    const job = (await talk(first)).json.data.id as string;
    const gesture = await post(first, '/gestures/generate', { prompt: 'waves', image_url: PUBLIC_IMAGE });
    const project = gesture.json.data.project_id as string;
    const credits = first.accounts.get(first.apiKey)!.credits;
    expect(credits).toBeLessThan(100_000 - 100);
    await first.close();

    const second = await startSimulator({ stateFile: file });
    try {
      expect(second.apiKey).toBe(first.apiKey);
      expect(second.persistence).toMatchObject({ mode: 'file', restoredJobs: 2 });
      expect(second.accounts.get(second.apiKey)!.credits).toBe(credits);
      // Still the same job, and it finishes on its own clock (400 ms after it was made), not from the restart.
      expect((await status(second, job)).status).toBe(true);
      const done = await waitFor(async () => {
        const d = (await status(second, job)).data;
        return d.status === 'completed' ? d : undefined;
      }, 'the restored job to complete');
      expect(new URL(done.url).origin).toBe(second.origin);
      // The project made before the restart is still the account's.
      const reuse = await post(second, '/gestures/generate', {
        prompt: 'nods',
        image_url: PUBLIC_IMAGE,
        project_id: project,
      });
      expect(reuse.status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('keeps the balance exactly (charges and nothing else)', async () => {
    const file = freshFile();
    const first = await startSimulator({ stateFile: file, startingCredits: 1000 });
    await talk(first);
    await talk(first);
    await first.close();
    const second = await startSimulator({ stateFile: file, startingCredits: 1000 });
    try {
      expect(second.accounts.get(second.apiKey)!.credits).toBe(800);
    } finally {
      await second.close();
    }
  });

  it('keeps uploads: a custom avatar made before the restart is listed and usable after it', async () => {
    const file = freshFile();
    const first = await startSimulator({ stateFile: file });
    const fd = new FormData();
    fd.append('image', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1])], { type: 'image/png' }), 'me.png');
    const made = await call(first, 'POST', '/custom-avatar/generate', { ...FRESH, form: fd });
    const avatarId = made.json.data.avatar_id as string;
    await first.close();

    const second = await startSimulator({ stateFile: file });
    try {
      const listed = (await get(second, '/video/avatars')).json.data as { id: string; thumbnail: string }[];
      const mine = listed.find((a) => a.id === avatarId);
      expect(mine).toBeDefined();
      expect(new URL(mine!.thumbnail).origin).toBe(second.origin);
      expect((await talk(second, avatarId)).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('keeps what reads settled: an upscaled video keeps its new size, a refund is not paid twice', async () => {
    const file = freshFile();
    const UPSCALE = {
      video_id: 'vid_seed_ok',
      project_id: 'proj_seed_ok',
      video_type: 'video',
      model_family: 'precision',
      model: 'sandbox-precision-1',
    };
    const statusOf = (sim: Simulator, d: { id: string; billing_id: string; project_id: string }) =>
      get(sim, '/upscale/status', {
        video_id: d.id,
        project_id: d.project_id,
        video_type: 'video',
        billing_id: d.billing_id,
      });
    const settled = (sim: Simulator, d: { id: string; billing_id: string; project_id: string }) =>
      waitFor(async () => {
        const s = (await statusOf(sim, d)).json.data;
        return s.status === 'processing' || s.status === 'preparing' || s.status === 'charged' ? undefined : s;
      }, 'the upscale attempt to settle');

    const first = await startSimulator({ stateFile: file });
    first.jobs.scriptNext({ outcome: { kind: 'fail', reason: 'provider timeout; credits refunded' } });
    const refunded = (await post(first, '/upscale/generate', { ...UPSCALE, target_resolution: '1080p' })).json.data;
    expect((await settled(first, refunded)).status).toBe('refunded');
    const up = (await post(first, '/upscale/generate', { ...UPSCALE, target_resolution: '2160p' })).json.data;
    expect((await settled(first, up)).status).toBe('completed');
    const credits = first.accounts.get(first.apiKey)!.credits;
    await first.close();

    const second = await startSimulator({ stateFile: file });
    try {
      expect(second.ownedVideos.get('vid_seed_ok')).toMatchObject({ width: 2160, height: 3840 });
      expect((await statusOf(second, refunded)).json.data.status).toBe('refunded');
      expect(second.accounts.get(second.apiKey)!.credits).toBe(credits);
    } finally {
      await second.close();
    }
  });

  it('tries its previous port again, so media URLs handed out before the restart still load', async () => {
    const file = freshFile();
    const first = await startSimulator({ stateFile: file });
    const origin = first.origin;
    await first.close();
    const second = await startSimulator({ stateFile: file });
    try {
      expect(second.origin).toBe(origin);
    } finally {
      await second.close();
    }
  });

  it('resetState starts clean: new key, no jobs, full balance', async () => {
    const file = freshFile();
    const first = await startSimulator({ stateFile: file });
    const job = (await talk(first)).json.data.id as string;
    await first.close();
    const second = await startSimulator({ stateFile: file, resetState: true });
    try {
      expect(second.apiKey).not.toBe(first.apiKey);
      expect(second.persistence).toMatchObject({ mode: 'file', restoredJobs: 0 });
      expect(second.jobs.all()).toHaveLength(0);
      expect(second.accounts.get(second.apiKey)!.credits).toBe(100_000);
      expect((await get(second, '/video/status', { id: job })).status).toBe(404);
    } finally {
      await second.close();
    }
    // And the reset sticks: the next plain start finds the reset state, not the old one.
    const third = await startSimulator({ stateFile: file });
    try {
      expect(third.apiKey).toBe(second.apiKey);
    } finally {
      await third.close();
    }
  });

  it('a second live simulator on the same file runs in memory and leaves the file alone; a reset is refused', async () => {
    const file = freshFile();
    const owner = await startSimulator({ stateFile: file });
    try {
      await talk(owner);
      const other = await startSimulator({ stateFile: file });
      try {
        expect(other.persistence).toEqual({ mode: 'busy', path: file });
        expect(other.apiKey).not.toBe(owner.apiKey);
        await talk(other);
      } finally {
        await other.close();
      }
      await expect(startSimulator({ stateFile: file, resetState: true })).rejects.toBeInstanceOf(StateError);
    } finally {
      await owner.close();
    }
    const again = await startSimulator({ stateFile: file });
    try {
      // The owner's one job, not the in-memory simulator's.
      expect(again.persistence).toMatchObject({ mode: 'file', restoredJobs: 1 });
    } finally {
      await again.close();
    }
  });

  it('the file is released when its process is killed (no stale lock)', async () => {
    const file = freshFile();
    // A child process opens the state file, says so, and is SIGKILLed while holding it.
    const script = `
      const { startSimulator } = await import(${JSON.stringify(join(import.meta.dirname, '../../dist/src/sim/index.js'))});
      await startSimulator({ stateFile: ${JSON.stringify(file)} });
      process.stdout.write('open\\n');
      setInterval(() => {}, 1000);`;
    const { ensureBuilt } = await import('../helpers/build.js');
    ensureBuilt();
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('open') && resolve());
      child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
    });
    const whileAlive = await startSimulator({ stateFile: file });
    expect(whileAlive.persistence.mode).toBe('busy');
    await whileAlive.close();
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    const after = await startSimulator({ stateFile: file });
    try {
      expect(after.persistence.mode).toBe('file');
    } finally {
      await after.close();
    }
  });

  it('a damaged file is a StateError naming it and the reset', async () => {
    const file = freshFile();
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, 'this is not a database, just text long enough to be read as a header '.repeat(20));
    const err = await startSimulator({ stateFile: file }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateError);
    expect((err as StateError).message).toContain(file);
    expect((err as StateError).nextStep).toMatch(/--reset-sandbox/);
  });

  it('without a state file it runs in memory (in-process tests)', async () => {
    const sim = await startSimulator();
    try {
      expect(sim.persistence).toEqual({ mode: 'memory' });
      expect((await talk(sim)).status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});
