/**
 * Durability of the job ledger against real process death: child processes append records and are killed
 * with SIGKILL at random points; every write they acknowledged must survive, whole.
 *
 * The child runs under bare `node`, so it needs JavaScript. Rather than importing `dist/` (which may be
 * stale, or absent when someone runs vitest alone), the ledger and its imports are compiled from the
 * current source into a temp dir under node_modules/.cache, where `zod` still resolves.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/jobs/ledger.js';
import { decodeLine } from '../../src/jobs/ledger-codec.js';
import type { JobRecord } from '../../src/jobs/store.js';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURE = join(ROOT, 'test/fixtures/ledger-writer.mjs');
/** ≥ 20 kills (the brief); each round costs one Node start-up, ~0.2 s. */
const KILL_ROUNDS = 24;

let buildDir: string;
let ledgerJs: string;
let stateBase: string;

beforeAll(async () => {
  const cache = join(ROOT, 'node_modules/.cache');
  await mkdir(cache, { recursive: true });
  buildDir = await mkdtemp(join(cache, 'genplat-ledger-'));
  // node_modules is a package-scope boundary: without this, Node would load the output as CommonJS.
  await writeFile(join(buildDir, 'package.json'), '{"type":"module"}\n');
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const args = [
    ...['src/jobs/ledger.ts', '--outDir', buildDir, '--rootDir', '.', '--module', 'nodenext'],
    ...['--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--skipLibCheck'],
    ...['--noEmitOnError', 'false', '--sourceMap', 'false', '--declaration', 'false'],
  ];
  // Type errors are the typecheck step's business; only the emitted JavaScript matters here.
  await promisify(execFile)(process.execPath, [tsc, ...args], { cwd: ROOT }).catch(() => {});
  ledgerJs = join(buildDir, 'src/jobs/ledger.js');
  await readFile(ledgerJs).catch(() => {
    throw new Error(`compiling src/jobs/ledger.ts for the child process failed: ${ledgerJs} missing`);
  });
  stateBase = await mkdtemp(join(tmpdir(), 'genplat-durability-'));
}, 120_000);

afterAll(async () => {
  if (buildDir) await rm(buildDir, { recursive: true, force: true });
  if (stateBase) await rm(stateBase, { recursive: true, force: true });
});

interface Acks {
  intents: Map<string, string>;
  updates: Set<string>;
}

/** Starts a writer; `onAck` sees every acknowledged line; resolves with the acks when the child exits. */
function runWriter(
  stateDir: string,
  tag: string,
  count: number | undefined,
  onAck: (child: ChildProcess, acks: Acks, total: number) => void = () => {},
): Promise<Acks & { signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, [FIXTURE, ledgerJs, stateDir, tag, ...(count ? [String(count)] : [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const acks: Acks = { intents: new Map(), updates: new Set() };
  let total = 0;
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const [what, id, name] = line.split(' ');
    if (what === 'intent') acks.intents.set(id!, name!);
    else if (what === 'update') acks.updates.add(id!);
    else return;
    onAck(child, acks, ++total);
  });
  return new Promise((res, rej) => {
    child.on('error', rej);
    // 'close' (not 'exit'): every byte of stdout has been read by then.
    child.on('close', (_code, signal) => res({ ...acks, signal, stderr }));
  });
}

/** The record is exactly what the fixture wrote: nothing torn, nothing mixed with another record. */
function expectIntact(rec: JobRecord | undefined, name: string, updated: boolean): void {
  expect(rec, name).toBeDefined();
  expect(rec!.tool).toBe('fixture');
  expect(rec!.fingerprint).toBe(name);
  expect(rec!.summary.startsWith(`${name} x`)).toBe(true);
  expect(rec!.estimate).toEqual({ credits: 100, api_units: 1, basis: 'fixture' });
  if (updated) expect(rec!).toMatchObject({ outcome: 'submitted', status: 'processing', requestId: `req-${name}` });
  else expect(['pending', 'submitted']).toContain(rec!.outcome);
}

/** stderr minus the ledger's own one-time "skipped damaged lines" warning, which a torn tail may cause. */
function unexpectedStderr(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => l.length > 0 && !l.includes('warn job ledger: skipped'))
    .join('\n');
}

async function damagedLines(stateDir: string): Promise<number> {
  const lines = (await readFile(join(stateDir, 'ledger.jsonl'), 'utf8')).split('\n');
  return lines.filter((l) => l.length > 0 && decodeLine(l) === undefined).length;
}

describe('ledger under SIGKILL', () => {
  it(`keeps every acknowledged write across ${KILL_ROUNDS} kills at random points`, async () => {
    const stateDir = join(stateBase, 'kills');
    const acked = new Map<string, string>();
    const updated = new Set<string>();
    const watcher = await openLedger(stateDir, { log: { warn: () => {} } });
    for (let round = 0; round < KILL_ROUNDS; round++) {
      // Kill right after the k-th ack (mid-way through the next write), or a random moment later.
      const k = 1 + Math.floor(Math.random() * 12);
      const delay = round % 3 === 0 ? Math.floor(Math.random() * 15) : -1;
      const res = await runWriter(stateDir, `k${round}`, undefined, (child, _acks, total) => {
        if (total !== k) return;
        if (delay < 0) child.kill('SIGKILL');
        else setTimeout(() => child.kill('SIGKILL'), delay);
      });
      expect(unexpectedStderr(res.stderr)).toBe('');
      expect(res.signal).toBe('SIGKILL');
      for (const [id, name] of res.intents) acked.set(id, name);
      for (const id of res.updates) updated.add(id);
      // A long-lived reader (another server process) sees them too, through its incremental tail.
      for (const [id, name] of res.intents) expectIntact(await watcher.get(id), name, res.updates.has(id));
    }
    await watcher.close();

    const warnings: string[] = [];
    const fresh = await openLedger(stateDir, { log: { warn: (m) => warnings.push(m) } });
    for (const [id, name] of acked) expectIntact(await fresh.get(id), name, updated.has(id));
    // Records written but not yet acknowledged at the kill may exist; they must be whole too.
    for (const rec of await fresh.list()) expectIntact(rec, rec.fingerprint, updated.has(rec.id));
    // A damaged line could only be the one being written at a kill; SIGKILL does not cut a write() short.
    const damaged = await damagedLines(stateDir);
    expect(damaged).toBeLessThanOrEqual(KILL_ROUNDS);
    console.error(
      `ledger-kill: ${KILL_ROUNDS} kills, ${acked.size} acknowledged intents, ${updated.size} updates, ${damaged} damaged line(s)`,
    );
    expect(acked.size).toBeGreaterThanOrEqual(KILL_ROUNDS);
    await fresh.close();
  }, 120_000);

  it('two children appending concurrently lose nothing and never interleave', async () => {
    const stateDir = join(stateBase, 'concurrent');
    const perChild = 120;
    const [a, b] = await Promise.all([runWriter(stateDir, 'a', perChild), runWriter(stateDir, 'b', perChild)]);
    for (const r of [a, b]) {
      expect(unexpectedStderr(r.stderr)).toBe('');
      expect(r.intents.size).toBe(perChild);
      expect(r.updates.size).toBe(perChild);
    }
    expect(await damagedLines(stateDir)).toBe(0);
    const fresh = await openLedger(stateDir);
    const all = await fresh.list();
    expect(all).toHaveLength(2 * perChild);
    for (const [id, name] of [...a.intents, ...b.intents]) expectIntact(await fresh.get(id), name, true);
    await fresh.close();
  }, 120_000);
});
