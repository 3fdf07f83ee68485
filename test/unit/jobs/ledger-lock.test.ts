/**
 * The ledger's cross-process critical section (`JobStore.exclusive`, `ledger-lock.ts`). Two ledger instances
 * on one dir stand in for two processes: each has its own in-process queue, so only the lock file keeps them
 * apart. Real separate processes are covered by test/durability/two-servers.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockBusyError } from '../../../src/jobs/ledger-lock.js';
import { newRecord, type TestDir, testDir } from './ledger-helpers.js';

let t: TestDir;
beforeEach(async () => {
  t = await testDir();
});
afterEach(async () => {
  await t.cleanup();
});

const lockPath = () => join(t.dir, 'send.lock');

async function writeLock(holder: Record<string, unknown>, ageMs = 0): Promise<void> {
  await writeFile(lockPath(), JSON.stringify({ at: new Date().toISOString(), token: 'someone', ...holder }));
  if (ageMs > 0) {
    const then = new Date(Date.now() - ageMs);
    await utimes(lockPath(), then, then);
  }
}

/** A pid that surely belonged to a process that has exited: a child we ran to completion. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  if (r.pid === undefined) throw new Error('could not start a child process');
  return r.pid;
}

/** Lock files left in the state dir: the lock itself or a stale one renamed aside. */
async function lockLeftovers(): Promise<string[]> {
  return (await readdir(t.dir)).filter((n) => n.startsWith('send.lock'));
}

describe('exclusive: mutual exclusion between two ledgers on one dir', () => {
  it('never runs two sections at once, and each sees what the other wrote inside its section', async () => {
    const a = await t.open();
    const b = await t.open();
    let inside = 0;
    let maxInside = 0;
    let sent = 0;
    // The runtime's pattern: check for a duplicate, then write the intent. Only one may pass.
    const admit = (store: typeof a) =>
      store.exclusive(async () => {
        inside++;
        maxInside = Math.max(maxInside, inside);
        const dup = await store.findActiveDuplicate('fp-race');
        // Widen the window between check and write, where a missing lock would let the other through.
        await sleep(Math.random() * 5);
        if (!dup) {
          await store.recordIntent(newRecord({ fingerprint: 'fp-race' }));
          sent++;
        }
        inside--;
      });
    await Promise.all(Array.from({ length: 24 }, (_, i) => admit(i % 2 === 0 ? a : b)));
    expect(maxInside).toBe(1);
    expect(sent).toBe(1);
    expect((await a.list()).filter((r) => r.fingerprint === 'fp-race')).toHaveLength(1);
    expect(await lockLeftovers()).toEqual([]);
  });

  it('a live holder that keeps its lock past staleMs is not robbed: it refreshes the file', async () => {
    // staleMs 600 → refresh every 200 ms; the holder keeps the lock 3 stale periods.
    const opts = { lock: { staleMs: 600, waitMs: 10_000 } };
    const a = await t.open(opts);
    const b = await t.open(opts);
    let aDone = false;
    let overlap = false;
    const holding = a.exclusive(async () => {
      await sleep(1_800);
      aDone = true;
    });
    await sleep(50);
    await b.exclusive(async () => {
      overlap = !aDone;
    });
    await holding;
    expect(overlap).toBe(false);
    expect(t.warnings.filter((w) => w.includes('stale'))).toEqual([]);
  });
});

describe('exclusive: stale locks', () => {
  it('recovers a lock whose holder pid (on this host) has exited', async () => {
    const store = await t.open({ lock: { waitMs: 1_000 } });
    await writeLock({ pid: deadPid(), hostname: hostname() });
    let ran = false;
    await store.exclusive(async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    expect(t.warnings.join('\n')).toMatch(/removed a stale lock \(holder pid \d+ has exited/);
    expect(await lockLeftovers()).toEqual([]);
  });

  it('recovers a lock not refreshed for longer than staleMs, whatever its holder claims', async () => {
    const store = await t.open({ lock: { waitMs: 1_000 } });
    // Another host: its pid cannot be checked from here, so only the age tells.
    await writeLock({ pid: 1, hostname: 'another-host.example' }, 60_000);
    let ran = false;
    await store.exclusive(async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    expect(t.warnings.join('\n')).toMatch(/removed a stale lock \(not refreshed for \d+ s/);
    expect(await lockLeftovers()).toEqual([]);
  });

  it('several ledgers finding the same stale lock at once: one recovery, never two holders', async () => {
    const stores = await Promise.all([1, 2, 3, 4].map(() => t.open({ lock: { waitMs: 5_000 } })));
    await writeLock({ pid: deadPid(), hostname: hostname() });
    let inside = 0;
    let maxInside = 0;
    await Promise.all(
      stores.flatMap((s) =>
        [1, 2, 3].map(() =>
          s.exclusive(async () => {
            inside++;
            maxInside = Math.max(maxInside, inside);
            await sleep(Math.random() * 3);
            inside--;
          }),
        ),
      ),
    );
    expect(maxInside).toBe(1);
    expect(t.warnings.filter((w) => w.includes('removed a stale lock'))).toHaveLength(1);
    expect(t.warnings.filter((w) => w.includes('restore') || w.includes('not ours'))).toEqual([]);
    expect(await lockLeftovers()).toEqual([]);
  });

  it('recovers a lock naming our own pid that this process does not hold (an earlier process had our pid)', async () => {
    const store = await t.open({ lock: { waitMs: 1_000 } });
    await writeLock({ pid: process.pid, hostname: hostname() });
    await store.exclusive(async () => {});
    expect(t.warnings.join('\n')).toMatch(/earlier process with our pid/);
  });
});

describe('exclusive: release and bounded wait', () => {
  it('releases the lock when fn throws, and passes the error on', async () => {
    const a = await t.open({ lock: { waitMs: 500 } });
    const b = await t.open({ lock: { waitMs: 500 } });
    await expect(
      a.exclusive(async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(existsSync(lockPath())).toBe(false);
    // The other ledger gets in at once (well inside its 500 ms bound).
    await expect(b.exclusive(async () => 'in')).resolves.toBe('in');
  });

  it('gives up after waitMs with a clear error, without running fn or touching a live lock', async () => {
    const a = await t.open();
    const b = await t.open({ lock: { waitMs: 300 } });
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const holding = a.exclusive(() => held);
    await sleep(20);
    let ran = false;
    const started = Date.now();
    const err = await b
      .exclusive(async () => {
        ran = true;
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockBusyError);
    expect(String((err as Error).message)).toMatch(/Nothing was sent or charged/);
    expect(String((err as Error).message)).toContain(`pid ${process.pid}`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(ran).toBe(false);
    expect(existsSync(lockPath())).toBe(true);
    release();
    await holding;
    expect(existsSync(lockPath())).toBe(false);
  });

  it('waits on a fresh lock held from another host, then refuses', async () => {
    const store = await t.open({ lock: { waitMs: 200 } });
    await writeLock({ pid: 1, hostname: 'another-host.example' });
    await expect(store.exclusive(async () => {})).rejects.toBeInstanceOf(LockBusyError);
    expect(existsSync(lockPath())).toBe(true);
  });
});
