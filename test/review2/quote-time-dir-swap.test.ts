/**
 * Review 2: the send-time check (change 1, confine.ts openQuotedFile) proves the staged file is the very file the
 * QUOTE opened (dev:ino, size, hash). But the quote itself opens it by a path whose confinement was decided
 * earlier: checkLocalFile → confinePath (realpath, isInside) → open(real, O_NOFOLLOW). O_NOFOLLOW guards the
 * last component only, so a DIRECTORY component of `real` swapped for a symlink between the realpath and the
 * open makes the quote open, hash and record (dev:ino) a file outside the allowed folders; the send-time check
 * then faithfully sends that outside file. The fd is never re-checked against the roots (e.g. fstat vs an lstat
 * of the path's parent chain, or /proc/self/fd realpath → isInside).
 *
 * The race is hit deterministically by wrapping fs/promises.realpath: the swap runs right after the candidate
 * path was resolved (what a concurrent process could do in that window). Consent by policy (GENPLAT_CONFIRM
 * never / above:N, a bounded price): one quote, so nothing else sees the file. With a token, the swap in the
 * confirming call changes the `local:<sha256>` in the request and voids the token; the fresh quote then names
 * the outside file's hash, which a person cannot tell apart.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { sha256, wav } from '../files/media-bytes.js';
import { startS3, type TestS3 } from '../files/s3-server.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

/** `skip`: resolutions to let through first (an unbounded price is quoted, then confirmed: two quotes). */
const race: { swap?: () => void; skip: number } = { skip: 0 };

vi.mock('node:fs/promises', async (importOriginal) => {
  const orig = await importOriginal<typeof import('node:fs/promises')>();
  const realpath = (async (p: Parameters<typeof orig.realpath>[0], o?: Parameters<typeof orig.realpath>[1]) => {
    const out = await orig.realpath(p, o as never);
    if (race.swap && String(p).endsWith(join('sub', 'voice.wav')) && race.skip-- <= 0) {
      const swap = race.swap;
      race.swap = undefined;
      swap();
    }
    return out;
  }) as typeof orig.realpath;
  return { ...orig, realpath, default: { ...orig, realpath } };
});

let s3: TestS3;
let sim: Simulator;
let h: Harness;
let inputs: string;
let outside: string;

beforeAll(async () => {
  s3 = await startS3();
  sim = await startSimulator({ timing: 'test', fetchMedia: true });
  inputs = mkdtempSync(join(tmpdir(), 'genplat-inputs-'));
  outside = mkdtempSync(join(tmpdir(), 'genplat-outside-'));
  h = await startHarness({
    sim,
    config: {
      confirm: { mode: 'never' },
      files: {
        inputDirs: [inputs],
        staging: {
          bucket: s3.bucket,
          endpoint: s3.endpoint,
          region: 'us-east-1',
          prefix: 'genplat-staging/',
          pathStyle: true,
          ttlSeconds: 2,
        },
      },
    },
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await sim?.close();
  await s3?.close();
  rmSync(inputs, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('a directory of the path swapped between the quote-time realpath and open', () => {
  it('never reads, stages or sends a file outside the allowed folders', async () => {
    mkdirSync(join(inputs, 'sub'));
    writeFileSync(join(inputs, 'sub', 'voice.wav'), wav(16 * 1024));
    mkdirSync(join(outside, 'sub'));
    const secret = wav(16 * 1024);
    writeFileSync(join(outside, 'sub', 'voice.wav'), secret);
    // A bounded price and GENPLAT_CONFIRM=never: one quote, consent by policy (no token binds the hash).
    race.skip = 0;
    race.swap = () => {
      renameSync(join(inputs, 'sub'), join(inputs, 'sub-old'));
      symlinkSync(join(outside, 'sub'), join(inputs, 'sub'));
    };
    const r = await h.call('create_talking_video', {
      avatar_id: 'av_ava',
      voice_script: 'Hi.',
      voice_url: join('sub', 'voice.wav'),
    });
    expect(race.swap, `the swap ran inside the quote: ${text(r)}`).toBeUndefined();
    if (!r.isError) await h.call('wait_for_jobs', { handles: [structured(r).handle], max_wait_s: 30 });
    const fetched = sim.fetched.entries().map((f) => f.sha256);
    // Fails today: the outside file's bytes reached the platform.
    expect(fetched, text(r)).not.toContain(sha256(secret));
  }, 60_000);
});
