/**
 * Issue 22, review finding 3: a local file is checked and hashed at the quote, but read again when it is staged,
 * right before the POST (for a campaign, maybe minutes later). Between the two the path can be swapped: for a
 * symlink out of the allowed folders (its bytes would be read and uploaded before the hash check refused them), a
 * FIFO (the read would hang the call or the sweeper), or another file. At send time the path must name the very
 * file the quote checked (O_NOFOLLOW, same dev:ino, same size) or nothing is read, staged or sent.
 *
 * The swap happens at `after_admit` — admitted, not yet staged — through the server's own step hook, so the
 * window is hit every run rather than raced.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PaidStep } from '../../src/kill-steps.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';
import { png, sha256, wav } from './media-bytes.js';
import { startS3, type TestS3 } from './s3-server.js';

let s3: TestS3;
let sim: Simulator;
let h: Harness;
let inputs: string;
let outside: string;
/** What to do to the files when the server reaches `after_admit`; cleared after it ran once. */
let atAdmit: (() => void) | undefined;

const posts = () => sim.log.entries().filter((e) => e.method === 'POST').length;

beforeAll(async () => {
  s3 = await startS3();
  sim = await startSimulator({ timing: 'test', fetchMedia: true });
  inputs = mkdtempSync(join(tmpdir(), 'genplat-inputs-'));
  outside = mkdtempSync(join(tmpdir(), 'genplat-outside-'));
  h = await startHarness({
    sim,
    onPaidStep: (step: PaidStep) => {
      if (step !== 'after_admit' || !atAdmit) return;
      const swap = atAdmit;
      atAdmit = undefined;
      swap();
    },
    config: {
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
beforeEach(() => {
  sim.log.clear();
  atAdmit = undefined;
});

/** A quoted image, then `swap` between admission and staging: the call must fail unsent, nothing staged. */
async function refusedAfterSwap(name: string, swap: (path: string) => void, rule: RegExp) {
  const path = join(inputs, name);
  writeFileSync(path, png(8192));
  atAdmit = () => swap(path);
  const r = await h.call('animate_gesture', { prompt: 'waves', image_url: name });
  expect(atAdmit, 'the swap ran at after_admit').toBeUndefined();
  expect(r.isError, text(r)).toBe(true);
  expect(text(r)).toMatch(/image_url/);
  expect(text(r)).toMatch(rule);
  expect(posts()).toBe(0);
  expect(await s3.keys()).toEqual([]);
  expect(sim.fetched.entries().filter((f) => f.field === 'image_url')).toEqual([]);
}

describe('a local file swapped after the quote is not read, staged or sent', () => {
  it('swapped for a symlink to a file outside the folders (same size): refused, the outside bytes never read', async () => {
    const secret = png(8192);
    writeFileSync(join(outside, 'secret.png'), secret);
    await refusedAfterSwap(
      'swap-link.png',
      (p) => {
        unlinkSync(p);
        symlinkSync(join(outside, 'secret.png'), p);
      },
      /cannot be opened since the quote \(ELOOP\)/,
    );
    expect(JSON.stringify(sim.fetched.entries())).not.toContain(sha256(secret));
  });

  it('swapped for a FIFO: refused at once, nothing hangs', async () => {
    await refusedAfterSwap(
      'swap-fifo.png',
      (p) => {
        unlinkSync(p);
        execFileSync('mkfifo', [p]);
      },
      /no longer a regular file/,
    );
  });

  it('replaced by another file of the same size (rename over it): refused as another file', async () => {
    await refusedAfterSwap(
      'swap-other.png',
      (p) => {
        writeFileSync(`${p}.new`, png(8192));
        renameSync(`${p}.new`, p);
      },
      /replaced by another file/,
    );
  });

  it('rewritten in place with other bytes of the same size: the hash refuses it, its staged copy is deleted', async () => {
    await refusedAfterSwap('swap-bytes.png', (p) => writeFileSync(p, png(8192)), /changed after it was quoted/);
  });

  it('left alone: the same call completes and the simulator gets the quoted bytes', async () => {
    const bytes = png(8192);
    writeFileSync(join(inputs, 'kept.png'), bytes);
    atAdmit = () => undefined;
    const r = await h.call('animate_gesture', { prompt: 'waves', image_url: 'kept.png' });
    expect(r.isError, text(r)).toBeFalsy();
    expect(posts()).toBe(1);
    const w = await h.call('wait_for_jobs', { handles: [structured(r).handle], max_wait_s: 30 });
    expect(text(w)).toContain('completed');
    expect(sim.fetched.entries().find((f) => f.field === 'image_url')?.sha256).toBe(sha256(bytes));
  });

  it('a campaign item whose file is swapped for a symlink out fails unsent; the other item is sent', async () => {
    const a = wav(16 * 1024);
    writeFileSync(join(inputs, 'keep.wav'), a);
    writeFileSync(join(inputs, 'swap.wav'), wav(16 * 1024));
    writeFileSync(join(outside, 'secret.wav'), wav(16 * 1024));
    atAdmit = () => {
      unlinkSync(join(inputs, 'swap.wav'));
      symlinkSync(join(outside, 'secret.wav'), join(inputs, 'swap.wav'));
    };
    const r = await h.call('create_campaign', {
      items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'two takes' } }],
      vary: { voice_url: ['keep.wav', 'swap.wav'] },
    });
    expect(r.isError, text(r)).toBeFalsy();
    const handle = structured(r).handle as string;
    await h.call('wait_for_jobs', { handles: [handle], max_wait_s: 30 });
    const view = structured(await h.call('get_job', { handle })) as unknown as {
      details: { campaign: { items: { status: string; reason?: string }[] } };
    };
    const [kept, swapped] = view.details.campaign.items;
    expect(kept!.status).toBe('completed');
    expect(swapped!.status).toBe('failed');
    expect(swapped!.reason).toMatch(/voice_url.*cannot be opened since the quote/);
    expect(posts()).toBe(1);
    expect(
      sim.fetched
        .entries()
        .filter((f) => f.field === 'voice_url')
        .map((f) => f.sha256),
    ).toEqual([sha256(a)]);
  });
});
