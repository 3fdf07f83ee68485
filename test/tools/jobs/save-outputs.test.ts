import { mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { downloadTo } from '../../../src/client/download.js';
import { setTrustedMediaOrigins } from '../../../src/guards/url.js';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

let h: Harness;
let out: string;
beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'genplat-out-'));
  h = await startHarness({ config: { outputDir: out } });
});
afterAll(async () => {
  await h.close();
  await rm(out, { recursive: true, force: true });
});
beforeEach(() => h.sim.log.clear());

/** A finished job of `tool`, followed to completion through the real tools. */
async function finished(tool: string, args: Record<string, unknown>): Promise<string> {
  const sub = structured(await h.call(tool, args));
  const handle = sub.handle!;
  for (let i = 0; i < 20; i++) {
    const w = structured(await h.call('wait_for_jobs', { handles: [handle], max_wait_s: 10 }));
    const job = (w.jobs as { status: string }[])[0]!;
    if (job.status === 'completed') return handle;
  }
  throw new Error(`${handle} did not complete`);
}

async function served(url: string): Promise<Buffer> {
  return Buffer.from(await (await fetch(url)).arrayBuffer());
}

describe('save_outputs', () => {
  it('writes the sandbox MP4 byte for byte, named from the job, inside GENPLAT_OUTPUT_DIR', async () => {
    const handle = await finished('create_talking_video', { avatar_id: 'av_marcus', voice_script: 'Save me.' });
    const r = await h.call('save_outputs', { handle });
    expect(r.isError, text(r)).toBeFalsy();
    const files = structured(r).files as { path: string; url: string; content_type: string }[];
    expect(files).toHaveLength(1);
    expect(files[0]!.content_type).toBe('video/mp4');
    expect(files[0]!.path.startsWith(out)).toBe(true);
    expect(files[0]!.path).toMatch(/actor_video_.+-1\.mp4$/);
    expect((await readFile(files[0]!.path)).equals(await served(files[0]!.url))).toBe(true);
    expect((await readdir(out)).filter((f) => f.endsWith('.part') || f.endsWith('.download'))).toEqual([]);
  });

  it('writes the sandbox PNG byte for byte, into a subfolder', async () => {
    const handle = await finished('create_shoppable_image', {
      category: 'beauty',
      format: 'before_after',
      image_url: 'https://cdn.example.com/serum.png',
      context: 'saved shelf',
    });
    const r = await h.call('save_outputs', { handle, folder: 'ads/june' });
    expect(r.isError, text(r)).toBeFalsy();
    const files = structured(r).files as { path: string; url: string; content_type: string }[];
    expect(files[0]!.content_type).toBe('image/png');
    expect(files[0]!.path.startsWith(join(out, 'ads', 'june'))).toBe(true);
    expect((await readFile(files[0]!.path)).equals(await served(files[0]!.url))).toBe(true);
  });

  it('refuses folders outside GENPLAT_OUTPUT_DIR (.., absolute, a symlink out) before downloading', async () => {
    const handle = await finished('create_talking_video', { avatar_id: 'av_marcus', voice_script: 'Stay inside.' });
    const outside = await mkdtemp(join(tmpdir(), 'genplat-outside-'));
    await symlink(outside, join(out, 'escape'));
    h.sim.log.clear();
    for (const folder of ['../x', 'a/../../x', outside, 'escape']) {
      const r = await h.call('save_outputs', { handle, folder });
      expect(r.isError, folder).toBe(true);
      expect(text(r)).toMatch(/"folder"/);
    }
    expect(await readdir(outside)).toEqual([]);
    expect(h.sim.log.entries().filter((e) => e.path.startsWith('/media/'))).toEqual([]);
    await rm(outside, { recursive: true, force: true });
  });

  it('refuses a job that is not finished', async () => {
    h.sim.jobs.scriptNext({ durationMs: 600_000 });
    const sub = structured(await h.call('create_talking_video', { avatar_id: 'av_marcus', voice_script: 'Not yet.' }));
    const r = await h.call('save_outputs', { handle: sub.handle! });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/wait_for_jobs/);
  });
});

describe('downloadTo (the download save_outputs uses)', () => {
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/to-metadata') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
      } else if (req.url === '/to-private') {
        res.writeHead(301, { location: 'http://10.0.0.7/video.mp4' }).end();
      } else if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(3 * 1024 * 1024) });
        res.end(Buffer.alloc(3 * 1024 * 1024));
      } else if (req.url === '/big-unannounced') {
        res.writeHead(200, { 'content-type': 'video/mp4' });
        res.end(Buffer.alloc(3 * 1024 * 1024));
      } else if (req.url === '/html') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
      } else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    setTrustedMediaOrigins([h.sim.origin]);
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => setTrustedMediaOrigins([h.sim.origin, origin]));

  const get = (path: string, maxBytes = 1024 * 1024) =>
    downloadTo({ url: `${origin}${path}`, media: 'video', path: join(out, `dl-${path.slice(1)}.mp4`), maxBytes });

  it('refuses redirects to non-public hosts without following them', async () => {
    await expect(get('/to-metadata')).rejects.toThrow(/redirect target .*link-local/);
    await expect(get('/to-private')).rejects.toThrow(/redirect target .*private/);
  });

  it('refuses a loopback URL that is not the sandbox', async () => {
    setTrustedMediaOrigins([h.sim.origin]);
    await expect(get('/big')).rejects.toThrow(/output URL: it must be a public http\(s\) URL.*loopback/);
  });

  it('refuses oversize files, announced or not, and leaves no file behind', async () => {
    await expect(get('/big')).rejects.toThrow(/larger than the 1 MB cap/);
    await expect(get('/big-unannounced')).rejects.toThrow(/larger than the 1 MB cap/);
    expect((await readdir(out)).filter((f) => f.startsWith('dl-'))).toEqual([]);
  });

  it('refuses a content type outside the media family', async () => {
    await expect(get('/html')).rejects.toThrow(/served as "text\/html"/);
  });
});
