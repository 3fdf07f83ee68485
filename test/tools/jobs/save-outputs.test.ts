import { mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { downloadTo } from '../../../src/client/download.js';
import { guardedLookup, type Resolver, systemResolver } from '../../../src/client/guarded-lookup.js';
import { saveFiles } from '../../../src/client/save-files.js';
import { setTrustedMediaOrigins } from '../../../src/guards/url.js';
import { buildMp4, buildPng } from '../../../src/sim/media.js';
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
  let port = 0;
  const png = buildPng();
  const bigMp4 = Buffer.concat([buildMp4(), Buffer.alloc(3 * 1024 * 1024)]);
  /** Plays a DNS whose public-looking names answer 127.0.0.1 (the attack); counts what it was asked. */
  const asked: string[] = [];
  const rebinding: Resolver = async (hostname) => {
    asked.push(hostname);
    return [{ address: '127.0.0.1', family: 4 }];
  };
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/to-metadata') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
      } else if (req.url === '/to-private') {
        res.writeHead(301, { location: 'http://10.0.0.7/video.mp4' }).end();
      } else if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(3 * 1024 * 1024) });
        res.end(bigMp4);
      } else if (req.url === '/big-unannounced') {
        res.writeHead(200, { 'content-type': 'video/mp4' });
        res.end(bigMp4);
      } else if (req.url === '/html') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
      } else if (req.url === '/exe') {
        // A Windows executable ("MZ") labelled as an image of type "exe".
        res.writeHead(200, { 'content-type': 'image/exe' }).end(Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200)]));
      } else if (req.url === '/image-html') {
        res.writeHead(200, { 'content-type': 'image/html' }).end('<html><script>alert(1)</script></html>');
      } else if (req.url === '/fake.png') {
        res.writeHead(200, { 'content-type': 'image/png' }).end('<!doctype html><html><body>not a png</body></html>');
      } else if (req.url === '/real.png') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(png);
      } else if (req.url === '/to-rebound-name') {
        // A public-looking name whose DNS answer is loopback (the test's resolver plays that DNS).
        res.writeHead(302, { location: `http://media.example.com:${port}/real.png` }).end();
      } else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    origin = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    setTrustedMediaOrigins([h.sim.origin]);
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => setTrustedMediaOrigins([h.sim.origin, origin]));

  const get = (path: string, maxBytes = 1024 * 1024, media = 'video') =>
    downloadTo({
      url: `${origin}${path}`,
      media,
      path: join(out, `dl-${path.slice(1).replace(/\W/g, '_')}`),
      maxBytes,
      resolver: rebinding,
    });

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

  it('refuses a body that is not media, whatever it is served as', async () => {
    await expect(get('/html')).rejects.toThrow(/served as "text\/html".*not a media file/);
    for (const path of ['/exe', '/image-html', '/fake.png']) {
      await expect(get(path, 1024 * 1024, 'image'), path).rejects.toThrow(/not a media file of a type we save/);
    }
    // A real PNG is not a video: the family must match too.
    await expect(get('/real.png', 1024 * 1024, 'video')).rejects.toThrow(/is a image\/png file/);
    expect((await readdir(out)).filter((f) => f.startsWith('dl-'))).toEqual([]);
  });

  it('names the file by its bytes: a PNG served as application/octet-stream is saved as .png', async () => {
    const got = await get('/real.png', 1024 * 1024, 'image');
    expect(got.contentType).toBe('image/png');
    expect(got.path).toMatch(/dl-real_png\.png$/);
    expect((await readFile(got.path)).equals(png)).toBe(true);
    await rm(got.path);
  });

  it('refuses a name that resolves to loopback, first hop or redirect, checked at connect time', async () => {
    asked.length = 0;
    await expect(get('/to-rebound-name', 1024 * 1024, 'image')).rejects.toThrow(
      /redirect target \(hop 1\).*"media\.example\.com" resolves to 127\.0\.0\.1 is a loopback address/,
    );
    await expect(
      downloadTo({
        url: `http://media.example.com:${port}/real.png`,
        media: 'image',
        path: join(out, 'dl-direct'),
        maxBytes: 1024,
        resolver: rebinding,
      }),
    ).rejects.toThrow(/output URL: it is not public: "media\.example\.com" resolves to 127\.0\.0\.1/);
    // The connection asked the guarded lookup, and nothing reached the server under that name.
    expect(asked).toEqual(['media.example.com', 'media.example.com']);
    expect((await readdir(out)).filter((f) => f.startsWith('dl-'))).toEqual([]);
  });

  it('the production lookup (system resolver) refuses loopback and any non-public address among several', async () => {
    const lookup = (resolve: Resolver, host: string) =>
      new Promise<unknown>((ok, fail) =>
        guardedLookup(resolve)(host, { all: true }, (err, addrs) => (err ? fail(err) : ok(addrs))),
      );
    await expect(lookup(systemResolver, 'localhost')).rejects.toThrow(/resolves to (127\.0\.0\.1|::1) is a loopback/);
    const mixed: Resolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    await expect(lookup(mixed, 'cdn.example.com')).rejects.toThrow(/10\.0\.0\.7 is a private/);
    const fine: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    expect(await lookup(fine, 'cdn.example.com')).toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it('save_outputs saves what is media and reports each refusal with its reason', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'genplat-save-'));
    const items = ['/exe', '/image-html', '/fake.png', '/real.png', '/to-rebound-name'].map((p, i) => ({
      url: `${origin}${p}`,
      media: 'image',
      name: `out-${i + 1}`,
    }));
    const r = await saveFiles(items, dir, { maxBytes: 1024 * 1024, resolver: rebinding });
    expect(r.files.map((f) => [f.url.replace(origin, ''), f.content_type, f.path.replace(dir, '')])).toEqual([
      ['/real.png', 'image/png', '/out-4.png'],
    ]);
    expect(r.refused.map((x) => [x.url.replace(origin, ''), x.reason.replace(origin, '')])).toEqual([
      ['/exe', expect.stringMatching(/served as "image\/exe".*not a media file/)],
      ['/image-html', expect.stringMatching(/served as "image\/html".*not a media file/)],
      ['/fake.png', expect.stringMatching(/served as "image\/png".*not a media file/)],
      ['/to-rebound-name', expect.stringMatching(/resolves to 127\.0\.0\.1 is a loopback address/)],
    ]);
    expect(await readdir(dir)).toEqual(['out-4.png']);
    await rm(dir, { recursive: true, force: true });
  });
});
