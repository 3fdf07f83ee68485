/**
 * Issue 22 review (2nd): a folder of a local path swapped for a symlink out of the allowed folders between the
 * quote's confinement (realpath) and its open. O_NOFOLLOW guards only the last name, so the open could reach a
 * file outside; checkLocalFile now confines the path again after the open and requires it to name the open file.
 *
 * Real races, no mock: a worker thread swaps `inputs/sub` between a real folder and a symlink to `outside/sub`
 * as fast as it can while the quote-time check runs again and again. Whatever the interleaving, the check may
 * refuse, but it never returns the outside file (its hash). Without the fix, 4,000 rounds returned the outside
 * file 1-3 times per run on a 2-core box (three runs); 10,000 rounds take ~2-5 s. A run that never hits the window
 * proves less, so the test also requires that the swapper really ran. (The reviewer's deterministic version
 * wrapped fs/promises.realpath with vi.mock, which a worker that keeps its module graph — vitest `isolate:
 * false` — does not apply reliably; this one needs no mock.)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLocalFile } from '../../src/files/confine.js';
import { sha256, wav } from './media-bytes.js';

const ROUNDS = 10_000;

const base = mkdtempSync(join(tmpdir(), 'genplat-race-'));
const inputs = join(base, 'inputs');
const outside = join(base, 'outside');
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('quote-time confinement under a racing folder swap', () => {
  it('never returns a file outside the allowed folders', async () => {
    mkdirSync(join(inputs, 'sub'), { recursive: true });
    mkdirSync(join(outside, 'sub'), { recursive: true });
    writeFileSync(join(inputs, 'sub', 'voice.wav'), wav(4096));
    const secret = wav(4096);
    writeFileSync(join(outside, 'sub', 'voice.wav'), secret);
    // The swapper: rename the real folder away and put a symlink out in its place, then back, in a tight loop.
    const swapper = new Worker(
      `const { parentPort, workerData: d } = require('node:worker_threads');
       const fs = require('node:fs');
       let stop = false, swaps = 0;
       parentPort.on('message', () => { stop = true; });
       const loop = () => {
         for (let i = 0; i < 200 && !stop; i++) {
           try { fs.renameSync(d.sub, d.parked); fs.symlinkSync(d.out, d.sub); fs.unlinkSync(d.sub); fs.renameSync(d.parked, d.sub); swaps++; } catch {}
         }
         if (stop) parentPort.postMessage(swaps); else setImmediate(loop);
       };
       loop();`,
      {
        eval: true,
        workerData: { sub: join(inputs, 'sub'), parked: join(inputs, 'sub-parked'), out: join(outside, 'sub') },
      },
    );
    const hashes = new Map<string, number>();
    let refused = 0;
    for (let i = 0; i < ROUNDS; i++) {
      try {
        const f = await checkLocalFile('voice_url', 'sub/voice.wav', 'audio', [inputs]);
        hashes.set(f.sha256, (hashes.get(f.sha256) ?? 0) + 1);
      } catch {
        refused++;
      }
    }
    const swaps = await new Promise<number>((resolve) => {
      swapper.once('message', resolve);
      swapper.postMessage('stop');
    });
    await swapper.terminate();
    expect(swaps, 'the swapper ran').toBeGreaterThan(100);
    expect(hashes.get(sha256(secret)) ?? 0, `refused ${refused} of ${ROUNDS}`).toBe(0);
  }, 120_000);
});
