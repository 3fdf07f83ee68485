/**
 * One place that makes sure `dist/` is built and current for tests that run the built server or demo.
 * vitest runs test files in parallel processes, so the build is guarded by a lock directory: the first file
 * builds, the others wait and then see fresh output. `npm test` builds before vitest, so in CI this only
 * checks timestamps.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const ENTRY = join(ROOT, 'dist', 'src', 'index.js');
export const DEMO = join(ROOT, 'dist', 'scripts', 'demo.js');

const LOCK = join(ROOT, 'node_modules', '.cache', 'genplat-build.lock');
/** A cold tsc build of the project takes ~15-20 s on the 2-core CI box; waiting 3 min covers a loaded machine. */
const LOCK_WAIT_MS = 180_000;
/** A lock older than this is from a killed test run (a build never takes this long). */
const LOCK_STALE_MS = 300_000;

function newest(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    n = Math.max(n, st.isDirectory() ? newest(p) : st.mtimeMs);
  }
  return n;
}

function fresh(outputs: string[]): boolean {
  const sources = Math.max(...['src', 'tools', 'resources', 'scripts'].map((d) => newest(join(ROOT, d))));
  return outputs.every((f) => existsSync(f) && statSync(f).mtimeMs >= sources);
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Builds dist when any of `outputs` is missing or older than the sources. tsc still writes JavaScript when
 * some file has a type error, so only missing outputs are fatal.
 * @throws Error when the outputs could not be produced, or the build lock stayed busy too long.
 */
export function ensureBuilt(outputs: string[] = [ENTRY]): void {
  if (fresh(outputs)) return;
  mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs > LOCK_STALE_MS)
        rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`build lock ${LOCK} stayed busy`);
      sleepSync(200);
    }
  }
  try {
    if (fresh(outputs)) return; // another test file built while we waited
    try {
      execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
        cwd: ROOT,
        stdio: 'pipe',
      });
    } catch {
      // Type errors elsewhere still emit JS; the existence check below decides.
    }
    // As `npm run build` does: the bin becomes the bundle (scripts/bundle-bin.mjs), so tests run what ships.
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle-bin.mjs')], { cwd: ROOT, stdio: 'pipe' });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
  for (const f of outputs) if (!existsSync(f)) throw new Error(`build did not produce ${f}`);
}
