/**
 * Issue 22 items 3-4 over the real HTTP transport (`startHttpRuntime`, SQLite store) against a simulator that
 * fetches loopback media (`fetchMedia`), with real SDK clients: `request_upload` → the link's PUT → `upload:<id>`
 * in a media field → the file is staged in the store and served at `/staged/…` (`loopbackStaging`: the test-only
 * stand-in for GENPLAT_PUBLIC_URL) → the simulator fetched identical bytes, the job completes, the staged row is
 * gone. Refusals: a second use and an expired link (410), a wrong type (415, nothing stored, link still usable),
 * another caller's reference (unknown, 0 POSTs), a tampered or expired staged URL (403 / 404). No byte of a
 * file appears in any tool result or log line.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { UPLOAD_LINK_TTL_MS } from '../../src/files/uploads.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import type { BlobStore } from '../../src/store/blobs.js';
import { openConfiguredStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { connectClient, sc, type TestClient, TOKEN_A, TOKEN_B, text } from '../http/helpers.js';
import { MARKER, png, sha256, wav } from './media-bytes.js';

let sim: Simulator;
let rt: HttpRuntime;
let store: Store;
let blobs: BlobStore;
let a: TestClient;
let b: TestClient;
let stateDir: string;
const logLines: string[] = [];
/** The runtime's clock: moved forward to expire links and staged files without sleeping. */
let skew = 0;
const now = () => Date.now() + skew;

const posts = () => sim.log.entries().filter((e) => e.method === 'POST').length;

async function link(c: TestClient, kind: 'image' | 'audio' | 'video', filename?: string) {
  const r = await c.call('request_upload', { kind, ...(filename ? { filename } : {}) });
  expect(r.isError, text(r)).toBeFalsy();
  return sc(r) as { url: string; reference: string; expires_at: string; max_bytes: number };
}

const put = (url: string, body: Buffer, type = 'application/octet-stream') =>
  fetch(url, { method: 'PUT', body, headers: { 'content-type': type, 'x-filename': 'shelf%20photo.png' } });

async function chunkCount(id: string): Promise<number> {
  let n = 0;
  while (await blobs.chunk(id, n)) n++;
  return n;
}

beforeAll(async () => {
  sim = await startSimulator({ timing: 'test', fetchMedia: true });
  setTrustedMediaOrigins([sim.origin]);
  stateDir = await mkdtemp(join(tmpdir(), 'genplat-uploads-'));
  const base = loadConfig(parseCli(['--http', '--port', '0']), {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: stateDir,
    GENPLAT_HTTP_TOKEN: `${TOKEN_A},${TOKEN_B}`,
  });
  const config: Config = { ...base, vendors: sim.vendors, confirm: { mode: 'never' }, logLevel: 'debug' };
  const log = createLogger('debug', (l) => logLines.push(l));
  rt = await startHttpRuntime(config, log, { pollIntervalMs: 20, now, loopbackStaging: true });
  store = await openConfiguredStore(
    config,
    createLogger('error', () => {}),
  );
  blobs = store.blobs!();
  a = await connectClient(rt.http.url, TOKEN_A);
  b = await connectClient(rt.http.url, TOKEN_B);
}, 60_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  await rt?.close();
  await store?.close();
  await sim?.close();
  await rm(stateDir, { recursive: true, force: true });
});
beforeEach(() => {
  sim.log.clear();
  skew = 0;
});

describe('request_upload → the page → upload:<id> → a job that completes', () => {
  it('uploads, stages from the store, the simulator fetches identical bytes, the staged row is gone', async () => {
    const l = await link(a, 'image', 'shelf.png');
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

    const r = await a.call('create_shoppable_image', {
      category: 'beauty',
      format: 'before_after',
      image_url: l.reference,
      context: 'clean bathroom shelf',
    });
    expect(r.isError, text(r)).toBeFalsy();
    const got = sim.fetched.entries().find((f) => f.field === 'image_url' && f.sha256 === sha256(bytes));
    expect(got).toMatchObject({ size: bytes.length, type: 'image/png' });
    expect(got?.path).toMatch(/^\/staged\//);
    if (sc(r).status !== 'completed') {
      const w = await a.call('wait_for_jobs', { handles: [sc(r).handle], max_wait_s: 30 });
      expect(text(w)).toContain('completed');
    }
    // Accepted and fetched: the staged copy is deleted (the upload itself stays for its own lifetime).
    const stagedId = got?.path.slice('/staged/'.length).split('.')[0] ?? '';
    for (let i = 0; i < 50 && (await blobs.get(stagedId)); i++) await new Promise((res) => setTimeout(res, 20));
    expect(await blobs.get(stagedId)).toBeUndefined();
    expect(await chunkCount(stagedId)).toBe(0);
    expect(await blobs.get(l.reference.slice('upload:'.length))).toMatchObject({ state: 'complete' });
    expect(JSON.stringify(r)).not.toContain(MARKER);
  });

  it('a second use of the link is refused, and so is its page', async () => {
    const l = await link(a, 'audio');
    expect((await put(l.url, wav(8192), 'audio/wav')).status).toBe(200);
    const again = await put(l.url, wav(8192), 'audio/wav');
    expect(again.status).toBe(410);
    expect(((await again.json()) as { error: string }).error).toContain('already used or has expired');
    expect((await fetch(l.url)).status).toBe(410);
  });

  it('an expired link is refused (page and PUT), nothing stored', async () => {
    const l = await link(a, 'image');
    skew = UPLOAD_LINK_TTL_MS + 1000;
    expect((await fetch(l.url)).status).toBe(410);
    expect((await put(l.url, png(), 'image/png')).status).toBe(410);
    const id = l.reference.slice('upload:'.length);
    expect(await blobs.get(id)).toMatchObject({ state: 'pending' });
    expect(await chunkCount(id)).toBe(0);
  });

  it('a wrong type is refused on the server with 0 bytes stored, and the link stays usable', async () => {
    const l = await link(a, 'image');
    const id = l.reference.slice('upload:'.length);
    const wrong = await put(l.url, Buffer.from(`#!/bin/sh\necho ${MARKER}\n`), 'image/png');
    expect(wrong.status).toBe(415);
    expect(await chunkCount(id)).toBe(0);
    expect(await blobs.get(id)).toMatchObject({ state: 'pending' });
    // Audio sent to an image link: sniffed from the bytes, whatever the header claims.
    expect((await put(l.url, wav(), 'image/png')).status).toBe(415);
    expect((await put(l.url, png(), 'image/png')).status).toBe(200);
  });

  it('a file over the kind cap is refused while it streams (no declared size), every stored row deleted', async () => {
    const l = await link(a, 'image');
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
    expect(await blobs.get(id)).toBeUndefined();
  });

  it("another caller's reference is an unknown upload reference, refused before any request", async () => {
    const l = await link(a, 'image');
    expect((await put(l.url, png(), 'image/png')).status).toBe(200);
    const r = await b.call('create_shoppable_image', {
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
    const l = await link(a, 'audio');
    expect((await put(l.url, wav(), 'audio/wav')).status).toBe(200);
    const r = await a.call('create_shoppable_image', {
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

describe('/staged/ URLs', () => {
  it('a tampered URL is 403, an unknown or expired one 404', async () => {
    const l = await link(a, 'image');
    expect((await put(l.url, png(), 'image/png')).status).toBe(200);
    const origin = new URL(rt.http.url).origin;
    expect((await fetch(`${origin}/staged/abc.def`)).status).toBe(403);
    const { selfStager } = await import('../../src/files/stage-self.js');
    const stager = selfStager({ blobs, key: () => store.consentKey(), base: () => origin, ttlSeconds: 60, now });
    const bytes = png(2048);
    const { Readable } = await import('node:stream');
    const staged = await stager.stage(Readable.from([bytes]), {
      size: bytes.length,
      contentType: 'image/png',
      ext: 'png',
    });
    const tampered = staged.url.replace(/\/staged\/(.)/, (_, c: string) => `/staged/${c === 'A' ? 'B' : 'A'}`);
    expect((await fetch(tampered)).status).toBe(403);
    skew = 61_000;
    expect((await fetch(staged.url)).status).toBe(404);
    skew = 0;
    const ok = await fetch(staged.url);
    expect(ok.status).toBe(200);
    expect(sha256(Buffer.from(await ok.arrayBuffer()))).toBe(sha256(bytes));
    // Fetched but no job accepted it: kept until its expiry; the sweep then deletes it.
    expect(await blobs.get(staged.key)).toBeDefined();
    expect(await stager.sweep(now() + 61_000)).toBeGreaterThanOrEqual(1);
    expect(await blobs.get(staged.key)).toBeUndefined();
  });
});

describe('no file content anywhere', () => {
  it('0 bytes of any uploaded file in the log', () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(MARKER);
  });
});
