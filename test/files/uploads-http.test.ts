/**
 * Issue 22 items 3-4 over the real HTTP transport (`startHttpRuntime`, SQLite store) against a simulator that
 * fetches loopback media (`fetchMedia`), with real SDK clients: `request_upload` → the link's PUT → `upload:<id>`
 * in a media field → the file is staged in the store and served at `/staged/…` (`loopbackStaging`: the test-only
 * stand-in for GENPLAT_PUBLIC_URL) → the simulator fetched identical bytes, the job completes, the staged row is
 * gone. Refusals: a second use and an expired link (410), a wrong type (415, nothing stored, link still usable),
 * another caller's reference (unknown, 0 POSTs), a tampered or expired staged URL (403 / 404). No byte of a
 * file appears in any tool result or log line.
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { selfStager } from '../../src/files/stage-self.js';
import { UPLOAD_LINK_TTL_MS } from '../../src/files/uploads.js';
import { sc, text } from '../http/helpers.js';
import { MARKER, png, sha256, wav } from './media-bytes.js';
import { requestLink, chunkCount as rows, startUploadsFixture, type UploadsFixture } from './uploads-fixture.js';

let fx: UploadsFixture;
const posts = () => fx.sim.log.entries().filter((e) => e.method === 'POST').length;
const link = (c: UploadsFixture['a'], kind: 'image' | 'audio' | 'video', filename?: string) =>
  requestLink(c, kind, filename);
const chunkCount = (id: string) => rows(fx.blobs, id);
const now = () => fx.now();

const put = (url: string, body: Buffer, type = 'application/octet-stream') =>
  fetch(url, { method: 'PUT', body, headers: { 'content-type': type, 'x-filename': 'shelf%20photo.png' } });

beforeAll(async () => {
  fx = await startUploadsFixture();
}, 60_000);
afterAll(async () => {
  await fx?.close();
});
beforeEach(() => {
  fx.sim.log.clear();
  fx.skew = 0;
});

describe('request_upload → the page → upload:<id> → a job that completes', () => {
  it('uploads, stages from the store, the simulator fetches identical bytes, the staged row is gone', async () => {
    const l = await link(fx.a, 'image', 'shelf.png');
    expect(l.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/upload\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(new Date(l.expires_at).getTime() - now()).toBeLessThanOrEqual(UPLOAD_LINK_TTL_MS);
    const page = await fetch(l.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'nonce-/);

    const bytes = png(3 * 1024 * 1024 + 17); // more than one 1 MiB row
    const up = await put(l.url, bytes, 'image/png');
    expect(up.status).toBe(200);
    const answer = (await up.json()) as { reference: string; size: number; sha256: string; content_type: string };
    expect(answer).toMatchObject({
      reference: l.reference,
      size: bytes.length,
      sha256: sha256(bytes),
      content_type: 'image/png',
    });
    expect(await chunkCount(l.reference.slice('upload:'.length))).toBe(4);

    const r = await fx.a.call('create_shoppable_image', {
      category: 'beauty',
      format: 'before_after',
      image_url: l.reference,
      context: 'clean bathroom shelf',
    });
    expect(r.isError, text(r)).toBeFalsy();
    const got = fx.sim.fetched.entries().find((f) => f.field === 'image_url' && f.sha256 === sha256(bytes));
    expect(got).toMatchObject({ size: bytes.length, type: 'image/png' });
    expect(got?.path).toMatch(/^\/staged\//);
    if (sc(r).status !== 'completed') {
      const w = await fx.a.call('wait_for_jobs', { handles: [sc(r).handle], max_wait_s: 30 });
      expect(text(w)).toContain('completed');
    }
    // Accepted and fetched: the staged copy is deleted (the upload itself stays for its own lifetime).
    const stagedId = got?.path.slice('/staged/'.length).split('.')[0] ?? '';
    for (let i = 0; i < 1000 && (await fx.blobs.get(stagedId)); i++) await new Promise((res) => setTimeout(res, 20));
    expect(await fx.blobs.get(stagedId)).toBeUndefined();
    expect(await chunkCount(stagedId)).toBe(0);
    expect(await fx.blobs.get(l.reference.slice('upload:'.length))).toMatchObject({ state: 'complete' });
    expect(JSON.stringify(r)).not.toContain(MARKER);
  });

  it('a campaign whose items name uploads: each item staged from the store and POSTed once, bytes identical', async () => {
    const refs: string[] = [];
    const sums: string[] = [];
    for (const size of [4096, 6000]) {
      const l = await link(fx.a, 'image', 'shelf.png');
      const bytes = png(size);
      expect((await put(l.url, bytes, 'image/png')).status).toBe(200);
      refs.push(l.reference);
      sums.push(sha256(bytes));
    }
    const before = posts();
    const r = await fx.a.call('create_campaign', {
      items: [
        {
          tool: 'create_shoppable_image',
          arguments: { category: 'beauty', format: 'before_after', context: 'clean bathroom shelf' },
        },
      ],
      vary: { image_url: refs },
    });
    expect(r.isError, text(r)).toBeFalsy();
    const w = await fx.a.call('wait_for_jobs', { handles: [sc(r).handle], max_wait_s: 30 });
    expect(text(w)).toMatch(/2 of 2 done/);
    expect(posts() - before).toBe(2);
    const fetched = fx.sim.fetched
      .entries()
      .filter((f) => f.field === 'image_url' && f.path.startsWith('/staged/'))
      .map((f) => f.sha256);
    expect(fetched).toEqual(expect.arrayContaining(sums));
    expect(JSON.stringify(r) + JSON.stringify(w)).not.toContain(MARKER);
  });

  it("a campaign naming another caller's upload is refused by item and field, before any request", async () => {
    const l = await link(fx.a, 'image');
    expect((await put(l.url, png(), 'image/png')).status).toBe(200);
    const r = await fx.b.call('create_campaign', {
      items: [
        {
          tool: 'create_shoppable_image',
          arguments: { category: 'beauty', format: 'before_after', context: 'x', image_url: l.reference },
        },
      ],
    });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/items\[0\]\.image_url.*unknown upload reference/);
    expect(posts()).toBe(0);
  });

  it('a second use of the link is refused, and so is its page', async () => {
    const l = await link(fx.a, 'audio');
    expect((await put(l.url, wav(8192), 'audio/wav')).status).toBe(200);
    const again = await put(l.url, wav(8192), 'audio/wav');
    expect(again.status).toBe(410);
    expect(((await again.json()) as { error: string }).error).toContain('already used or has expired');
    expect((await fetch(l.url)).status).toBe(410);
  });

  it('an expired link is refused (page and PUT), nothing stored', async () => {
    const l = await link(fx.a, 'image');
    fx.skew = UPLOAD_LINK_TTL_MS + 1000;
    expect((await fetch(l.url)).status).toBe(410);
    expect((await put(l.url, png(), 'image/png')).status).toBe(410);
    const id = l.reference.slice('upload:'.length);
    expect(await fx.blobs.get(id)).toMatchObject({ state: 'pending' });
    expect(await chunkCount(id)).toBe(0);
  });

  it('a wrong type is refused on the server with 0 bytes stored, and the link stays usable', async () => {
    const l = await link(fx.a, 'image');
    const id = l.reference.slice('upload:'.length);
    const wrong = await put(l.url, Buffer.from(`#!/bin/sh\necho ${MARKER}\n`), 'image/png');
    expect(wrong.status).toBe(415);
    expect(await chunkCount(id)).toBe(0);
    expect(await fx.blobs.get(id)).toMatchObject({ state: 'pending' });
    // Audio sent to an image link: sniffed from the bytes, whatever the header claims.
    expect((await put(l.url, wav(), 'image/png')).status).toBe(415);
    expect((await put(l.url, png(), 'image/png')).status).toBe(200);
  });

  it('a file over the kind cap is refused while it streams (no declared size), every stored row deleted', async () => {
    const l = await link(fx.a, 'image');
    const id = l.reference.slice('upload:'.length);
    const MiB = 1024 * 1024;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        // 31 MiB in 1 MiB pieces, the first one a PNG: over the 30 MiB image cap (src/files/limits.ts).
        if (sent >= 31) return c.close();
        c.enqueue(sent === 0 ? png(MiB) : new Uint8Array(MiB));
        sent++;
      },
    });
    const r = await fetch(l.url, {
      method: 'PUT',
      headers: { 'content-type': 'image/png' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(r.status).toBe(413);
    expect(await chunkCount(id)).toBe(0);
    expect(await fx.blobs.get(id)).toBeUndefined();
  });

  it("another caller's reference is an unknown upload reference, refused before any request", async () => {
    const l = await link(fx.a, 'image');
    expect((await put(l.url, png(), 'image/png')).status).toBe(200);
    const r = await fx.b.call('create_shoppable_image', {
      category: 'beauty',
      format: 'before_after',
      image_url: l.reference,
      context: 'shelf',
    });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('image_url');
    expect(text(r)).toContain('unknown upload reference');
    expect(posts()).toBe(0);
  });

  it('an upload of the wrong kind for the field is refused by name, before any request', async () => {
    const l = await link(fx.a, 'audio');
    expect((await put(l.url, wav(), 'audio/wav')).status).toBe(200);
    const r = await fx.a.call('create_shoppable_image', {
      category: 'beauty',
      format: 'before_after',
      image_url: l.reference,
      context: 'shelf',
    });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('upload is not image');
    expect(posts()).toBe(0);
  });
});

describe('custom avatar from uploads (multipart: the bytes themselves, nothing staged)', () => {
  it('portrait and voice sample as upload:<id> arrive byte for byte', async () => {
    const [img, voice] = [await link(fx.a, 'image'), await link(fx.a, 'audio')];
    const [pBytes, vBytes] = [png(200 * 1024), wav(64 * 1024)];
    expect((await put(img.url, pBytes, 'image/png')).status).toBe(200);
    expect((await put(voice.url, vBytes, 'audio/wav')).status).toBe(200);
    const r = await fx.a.call('create_custom_avatar', { image: img.reference, voice: voice.reference });
    expect(r.isError, text(r)).toBeFalsy();
    const post = fx.sim.log.entries().find((e) => e.path === '/custom-avatar/generate')!;
    const body = post.body as Record<string, { sha256: string; size: number }>;
    expect(body.image).toMatchObject({ sha256: sha256(pBytes), size: pBytes.length });
    expect(body.voice).toMatchObject({ sha256: sha256(vBytes), size: vBytes.length });
    expect(JSON.stringify(r)).not.toContain(MARKER);
  });

  it("another caller's upload, or one of the wrong type, is refused by field before any request", async () => {
    const img = await link(fx.a, 'image');
    expect((await put(img.url, png(), 'image/png')).status).toBe(200);
    const other = await fx.b.call('create_custom_avatar', { image: img.reference });
    expect(other.isError).toBe(true);
    expect(text(other)).toContain('unknown upload reference');
    const wrong = await fx.a.call('create_custom_avatar', {
      image: 'https://cdn.example.com/p.png',
      voice: img.reference,
    });
    expect(wrong.isError).toBe(true);
    expect(text(wrong)).toContain('voice');
    expect(text(wrong)).toContain('upload is image/png');
    expect(posts()).toBe(0);
  });
});

describe('/staged/ URLs', () => {
  it('a tampered URL is 403, an unknown or expired one 404', async () => {
    const l = await link(fx.a, 'image');
    expect((await put(l.url, png(), 'image/png')).status).toBe(200);
    const origin = new URL(fx.rt.http.url).origin;
    expect((await fetch(`${origin}/staged/abc.def`)).status).toBe(403);
    const stager = selfStager({
      blobs: fx.blobs,
      key: () => fx.store.consentKey(),
      base: () => origin,
      ttlSeconds: 60,
      now,
    });
    const bytes = png(2048);
    const staged = await stager.stage(Readable.from([bytes]), {
      size: bytes.length,
      contentType: 'image/png',
      ext: 'png',
    });
    const tampered = staged.url.replace(/\/staged\/(.)/, (_, c: string) => `/staged/${c === 'A' ? 'B' : 'A'}`);
    expect((await fetch(tampered)).status).toBe(403);
    fx.skew = 61_000;
    expect((await fetch(staged.url)).status).toBe(404);
    fx.skew = 0;
    const ok = await fetch(staged.url);
    expect(ok.status).toBe(200);
    expect(sha256(Buffer.from(await ok.arrayBuffer()))).toBe(sha256(bytes));
    // Fetched but no job accepted it: kept until its expiry; the sweep then deletes it.
    expect(await fx.blobs.get(staged.key)).toBeDefined();
    expect(await stager.sweep(now() + 61_000)).toBeGreaterThanOrEqual(1);
    expect(await fx.blobs.get(staged.key)).toBeUndefined();
  });
});

describe('no file content anywhere', () => {
  it('0 bytes of any uploaded file in the log', () => {
    expect(fx.logLines.length).toBeGreaterThan(0);
    expect(fx.logLines.join('\n')).not.toContain(MARKER);
  });
});
