/**
 * Several processes on one store, all released at once: 2 on one SQLite state dir, 3 on one PostgreSQL
 * database. The store, not our code, must make "exactly one" and "exactly N" hold across processes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../helpers/build.js';
import { createTestDatabase, dropTestDatabases } from './pg-helper.js';

const DIST_STORE = join(ROOT, 'dist', 'src', 'store');
const WORKER = join(ROOT, 'test', 'fixtures', 'store-worker.mjs');
const TOTAL = 50;

interface Tally {
  admitted: number;
  refused: Record<string, number>;
}

/** Spawns `procs` workers, waits until each says ready, says go to all, and sums their tallies. */
async function race(backend: string, where: string, procs: number, mode: string, dayJobs = 0): Promise<Tally> {
  const children = Array.from({ length: procs }, (_, p) => {
    const count = Math.floor(TOTAL / procs) + (p < TOTAL % procs ? 1 : 0);
    const child = spawn(
      process.execPath,
      [WORKER, DIST_STORE, backend, where, mode, String(count), `p${p}`, String(dayJobs)],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const next = async () => {
      const { value, done } = await lines.next();
      if (done) throw new Error(`worker ${p} exited early: ${stderr}`);
      return value as string;
    };
    return { child, next, stderr: () => stderr };
  });
  for (const c of children) expect(await c.next()).toBe('ready');
  for (const c of children) c.child.stdin.write('go\n');
  const total: Tally = { admitted: 0, refused: {} };
  for (const c of children) {
    const t = JSON.parse(await c.next()) as Tally;
    total.admitted += t.admitted;
    for (const [k, v] of Object.entries(t.refused)) total.refused[k] = (total.refused[k] ?? 0) + v;
    expect(c.stderr()).toBe(''); // no ExperimentalWarning, no errors
  }
  return total;
}

beforeAll(() => ensureBuilt([join(DIST_STORE, 'sqlite.js'), join(DIST_STORE, 'postgres.js')]), 180_000);
afterAll(dropTestDatabases);

const backends: [string, number, () => Promise<string>][] = [
  ['sqlite', 2, async () => mkdtempSync(join(tmpdir(), 'genplat-mp-'))],
  ['postgres', 3, createTestDatabase],
];

describe.each(backends)('%s: processes racing on one store', (backend, procs, location) => {
  it(`${TOTAL} identical calls across ${procs} processes → exactly 1 admitted`, async () => {
    const t = await race(backend, await location(), procs, 'dup');
    expect(t).toEqual({ admitted: 1, refused: { duplicate: TOTAL - 1 } });
  });

  it(`${TOTAL} distinct calls under a per-day ceiling of 7 jobs → exactly 7 admitted`, async () => {
    const t = await race(backend, await location(), procs, 'day', 7);
    expect(t).toEqual({ admitted: 7, refused: { per_day: TOTAL - 7 } });
  });

  it('one confirmation token redeemed by every process → admitted once', async () => {
    const t = await race(backend, await location(), procs, 'nonce');
    expect(t).toEqual({ admitted: 1, refused: { token_used: TOTAL - 1 } });
  });
});
