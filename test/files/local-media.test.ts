/**
 * Issue 22: local files in media fields, staged in a real S3-compatible server (s3rver on loopback), fetched by
 * the simulator (`fetchMedia`), which must receive byte-identical files; staged objects are gone afterwards.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  createWriteStream,
  linkSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';
import { MARKER, mp4Header, png, sha256, wav } from './media-bytes.js';
import { S3_SECRET, startS3, type TestS3 } from './s3-server.js';

let s3: TestS3;
let sim: Simulator;
let h: Harness;
let inputs: string;
const TTL_S = 2;

const posts = () => sim.log.entries().filter((e) => e.method === 'POST').length;

async function waitGone(): Promise<string[]> {
  const until = Date.now() + (TTL_S + 5) * 1000;
  let keys = await s3.keys();
  while (keys.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    keys = await s3.keys();
  }
  return keys;
}

async function completes(name: string, args: Record<string, unknown>) {
  const r = await h.call(name, args);
  const s = structured(r);
  expect(r.isError, text(r)).toBeFalsy();
  if (s.status !== 'completed') {
    const w = await h.call('wait_for_jobs', { handles: [s.handle], max_wait_s: 30 });
    expect(text(w)).toContain('completed');
  }
  return r;
}

beforeAll(async () => {
  s3 = await startS3();
  sim = await startSimulator({ timing: 'test', fetchMedia: true });
  inputs = mkdtempSync(join(tmpdir(), 'genplat-inputs-'));
  h = await startHarness({
    sim,
    config: {
      files: {
        inputDirs: [inputs],
        staging: {
          bucket: s3.bucket,
          endpoint: s3.endpoint,
          region: 'us-east-1',
          prefix: 'genplat-staging/',
          pathStyle: true,
          ttlSeconds: TTL_S,
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
});
beforeEach(() => sim.log.clear());

describe('local files arrive byte for byte, and their staged copies are deleted', () => {
  it('talking video with a local voice sample', async () => {
    const bytes = wav(64 * 1024);
    writeFileSync(join(inputs, 'voice.wav'), bytes);
    const r = await completes('create_talking_video', {
      avatar_id: 'av_ava',
      voice_script: 'my own recording',
      voice_url: 'voice.wav',
    });
    const got = sim.fetched.entries().find((f) => f.field === 'voice_url');
    expect(got).toMatchObject({ size: bytes.length, sha256: sha256(bytes), type: 'audio/wav' });
    expect(JSON.stringify(r)).not.toContain(MARKER);
    expect(await waitGone()).toEqual([]);
  });

  it('product video with a local product image (absolute path)', async () => {
    const bytes = png(200 * 1024);
    const path = join(inputs, 'bottle.png');
    writeFileSync(path, bytes);
    const voice = sim.data.voices[0]!;
    await completes('create_product_video', {
      engine: 'v2',
      image_url: path,
      script: 'This bottle keeps coffee hot.',
      voice_id: voice.id,
    });
    const got = sim.fetched.entries().find((f) => f.field === 'image_url' && f.sha256 === sha256(bytes));
    expect(got).toMatchObject({ size: bytes.length, type: 'image/png' });
    expect(await waitGone()).toEqual([]);
  });

  it('custom avatar from a local portrait: sent as the multipart file itself, nothing staged', async () => {
    const bytes = png(100 * 1024);
    const path = join(inputs, 'portrait.png');
    writeFileSync(path, bytes);
    await completes('create_custom_avatar', { image: path });
    const post = sim.log.entries().find((e) => e.path === '/custom-avatar/generate')!;
    expect((post.body as Record<string, { sha256: string; size: number }>).image).toMatchObject({
      sha256: sha256(bytes),
      size: bytes.length,
    });
    expect(await s3.keys()).toEqual([]);
  });

  it('a 50 MB local MP4 as a model source video', async () => {
    const path = join(inputs, 'source.mp4');
    const size = 50 * 1024 * 1024 + 123;
    const hash = createHash('sha256');
    await new Promise<void>((resolve, reject) => {
      const out = createWriteStream(path);
      out.on('error', reject);
      const head = mp4Header();
      hash.update(head);
      out.write(head);
      const chunk = Buffer.alloc(1024 * 1024, 7);
      let left = size - head.length;
      const more = () => {
        while (left > 0) {
          const c = chunk.subarray(0, Math.min(chunk.length, left));
          left -= c.length;
          hash.update(c);
          if (!out.write(c)) return out.once('drain', more);
        }
        out.end(resolve);
      };
      more();
    });
    const E = sim.vendors.E;
    await completes('run_model', {
      model: `${E}-h3-max-3d-to-video`,
      params: { video_url: 'source.mp4', prompt: 'the same scene at dusk', resolution: '720p' },
    });
    const got = sim.fetched.entries().find((f) => f.field === 'params.video_url');
    expect(got).toMatchObject({ size, sha256: hash.digest('hex'), type: 'video/mp4' });
    expect(await waitGone()).toEqual([]);
  }, 120_000);

  it('a campaign whose items vary a local voice sample: each item staged and POSTed once, bytes identical', async () => {
    const a = wav(32 * 1024);
    const b = wav(48 * 1024);
    writeFileSync(join(inputs, 'take-a.wav'), a);
    writeFileSync(join(inputs, 'take-b.wav'), b);
    const before = posts();
    const r = await h.call('create_campaign', {
      items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'two takes' } }],
      vary: { voice_url: ['take-a.wav', join(inputs, 'take-b.wav')] },
    });
    expect(r.isError, text(r)).toBeFalsy();
    const handle = structured(r).handle as string;
    const w = await h.call('wait_for_jobs', { handles: [handle], max_wait_s: 30 });
    expect(text(w)).toMatch(/2 of 2 done/);
    expect(posts() - before).toBe(2);
    const got = sim.fetched
      .entries()
      .filter((f) => f.field === 'voice_url')
      .map((f) => f.sha256);
    expect(got).toEqual(expect.arrayContaining([sha256(a), sha256(b)]));
    // What consent bound: content placeholders, never the staged URL nor the bytes.
    expect(JSON.stringify(r)).not.toContain(MARKER);
    expect(await waitGone()).toEqual([]);
  });

  it('no file content and no S3 secret in any log line', () => {
    const all = h.logs.join('\n');
    expect(all).not.toContain(MARKER);
    expect(all).not.toContain(`=${S3_SECRET}`);
    expect(all).not.toContain('X-Amz-Signature');
  });
});

describe('staged objects are deleted when the job is final, not at the end of their lifetime (issue 27 item 7)', () => {
  let h2: Harness;
  beforeAll(async () => {
    // An hour's lifetime (the default): only the job's end can explain an empty bucket within the test.
    h2 = await startHarness({
      sim,
      config: {
        files: {
          inputDirs: [inputs],
          staging: {
            bucket: s3.bucket,
            endpoint: s3.endpoint,
            region: 'us-east-1',
            prefix: 'genplat-staging/',
            pathStyle: true,
            ttlSeconds: 3600,
          },
        },
      },
    });
  }, 60_000);
  afterAll(() => h2?.close());

  it('a talking video with a local voice sample: its object is in the bucket while the job runs, gone once it completed', async () => {
    const bytes = wav(32 * 1024);
    writeFileSync(join(inputs, 'final.wav'), bytes);
    const r = await h2.call('create_talking_video', {
      avatar_id: 'av_ava',
      voice_script: 'deleted at the end',
      voice_url: 'final.wav',
    });
    const s = structured(r);
    expect(r.isError, text(r)).toBeFalsy();
    expect(s.status).not.toBe('completed');
    // Named by the job's ledger id in the bucket (how a restarted process finds them).
    const rec = (await h2.jobs.list({})).find((j) => j.handle === s.handle)!;
    expect(await s3.keys()).toEqual([expect.stringMatching(new RegExp(`^genplat-staging/${rec.id}/[\\w-]+\\.wav$`))]);
    const w = await h2.call('wait_for_jobs', { handles: [s.handle], max_wait_s: 30 });
    expect(text(w)).toContain('completed');
    // The deletion follows the poller's write of the final state: wait on the bucket, generously.
    const until = Date.now() + 20_000;
    let keys = await s3.keys();
    while (keys.length > 0 && Date.now() < until) {
      await new Promise((res) => setTimeout(res, 100));
      keys = await s3.keys();
    }
    expect(keys).toEqual([]);
  });
});

describe('a restarted server deletes the staged objects of a job that ended while it was down (issue 27 item 7)', () => {
  it('the record names them: the new process finds them when it sees the job final', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'genplat-restart-'));
    const files = {
      inputDirs: [inputs],
      staging: {
        bucket: s3.bucket,
        endpoint: s3.endpoint,
        region: 'us-east-1',
        prefix: 'genplat-staging/',
        pathStyle: true,
        ttlSeconds: 3600,
      },
    };
    try {
      writeFileSync(join(inputs, 'restart.wav'), wav(16 * 1024));
      const first = await startHarness({ sim, stateDir, config: { files } });
      const r = await first.call('create_talking_video', {
        avatar_id: 'av_ava',
        voice_script: 'the first process stops',
        voice_url: 'restart.wav',
      });
      expect(r.isError, text(r)).toBeFalsy();
      const handle = structured(r).handle as string;
      await first.close();
      expect(await s3.keys()).toHaveLength(1);
      const second = await startHarness({ sim, stateDir, config: { files } });
      try {
        const w = await second.call('wait_for_jobs', { handles: [handle], max_wait_s: 30 });
        expect(text(w)).toContain('completed');
        const until = Date.now() + 20_000;
        let keys = await s3.keys();
        while (keys.length > 0 && Date.now() < until) {
          await new Promise((res) => setTimeout(res, 100));
          keys = await s3.keys();
        }
        expect(keys).toEqual([]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});

describe('confinement: refused for free (0 platform requests, 0 bytes staged)', () => {
  const outside = mkdtempSync(join(tmpdir(), 'genplat-outside-'));
  afterAll(() => rmSync(outside, { recursive: true, force: true }));

  const cases: [string, () => string, RegExp][] = [
    [
      'a path outside the folders',
      () => {
        writeFileSync(join(outside, 'x.png'), png());
        return join(outside, 'x.png');
      },
      /outside the allowed folders/,
    ],
    [
      'a symlink out',
      () => {
        writeFileSync(join(outside, 'y.png'), png());
        symlinkSync(join(outside, 'y.png'), join(inputs, 'link.png'));
        return 'link.png';
      },
      /outside the allowed folders/,
    ],
    [
      // Issue 27 item 6: the link's name is inside, the file is the outside one.
      'a hard link to a file outside',
      () => {
        writeFileSync(join(outside, 'secret.png'), png());
        linkSync(join(outside, 'secret.png'), join(inputs, 'hard.png'));
        return 'hard.png';
      },
      /has 2 names \(hard links\).*put a copy/,
    ],
    ['..', () => `${inputs}/../x.png`, /must not contain "\.\."/],
    ['a device', () => '/dev/zero', /outside the allowed folders/],
    [
      'a FIFO inside the folders',
      () => {
        execFileSync('mkfifo', [join(inputs, 'pipe.png')]);
        return 'pipe.png';
      },
      /not a regular file/,
    ],
    [
      'an oversize image',
      () => {
        const p = join(inputs, 'huge.png');
        writeFileSync(p, png());
        // Sparse: 31 MiB of size without writing it.
        truncateSync(p, 31 * 1024 * 1024);
        return 'huge.png';
      },
      /at most 30 MiB for image/,
    ],
    [
      'a wrong-type file',
      () => {
        mkdirSync(join(inputs, 'keys'), { recursive: true });
        writeFileSync(join(inputs, 'keys', 'id_rsa.png'), '-----BEGIN OPENSSH PRIVATE KEY-----\n');
        return 'keys/id_rsa.png';
      },
      /content is not image/,
    ],
    ['an unknown upload reference', () => 'upload:abcdefgh1234', /unknown upload reference/],
  ];
  for (const [name, make, rule] of cases) {
    it(name, async () => {
      const r = await h.call('animate_gesture', { prompt: 'waves', image_url: make() });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/image_url/);
      expect(text(r)).toMatch(rule);
      expect(posts()).toBe(0);
      expect(await s3.keys()).toEqual([]);
    });
  }
});

describe('a hard-linked portrait for a custom avatar is refused too (issue 27 item 6)', () => {
  it('create_custom_avatar', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'genplat-outside-'));
    try {
      writeFileSync(join(outside, 'face.png'), png());
      linkSync(join(outside, 'face.png'), join(inputs, 'face-link.png'));
      const r = await h.call('create_custom_avatar', { image: join(inputs, 'face-link.png') });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/"image".*has 2 names \(hard links\)/s);
      expect(posts()).toBe(0);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('over HTTP a local path names the server disk, never the caller: refused for free', () => {
  it('animate_gesture with a path, caller alice', async () => {
    writeFileSync(join(inputs, 'mine.png'), png());
    const c = await startHarness({ sim, owner: 'alice', config: h.config });
    try {
      const r = await c.call('animate_gesture', { prompt: 'waves', image_url: join(inputs, 'mine.png') });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/image_url.*only on a local \(stdio\) server/);
      expect(posts()).toBe(0);
      expect(await s3.keys()).toEqual([]);
    } finally {
      await c.close();
    }
  });
});
