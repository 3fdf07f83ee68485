/**
 * Issue 27 item 6: the upload route sits outside the MCP endpoint's limits, so it has its own, as an operator
 * sets them (GENPLAT_UPLOAD_MAX_PENDING=2, GENPLAT_UPLOAD_MAX_INFLIGHT=1, GENPLAT_UPLOAD_IDLE_S=1 here): the
 * third pending link of a caller is refused, a caller's second body at once gets 429 while another caller's
 * goes on, and a body that goes quiet has its connection closed and what it stored deleted. Real HTTP runtime
 * and store (uploads-fixture.ts); the stall is a real socket that stops writing.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPLOAD_LINK_TTL_MS } from '../../src/files/uploads.js';
import { text } from '../http/helpers.js';
import { png } from './media-bytes.js';
import { chunkCount, requestLink, startUploadsFixture, type UploadsFixture } from './uploads-fixture.js';

let fx: UploadsFixture;
beforeAll(async () => {
  fx = await startUploadsFixture({
    GENPLAT_UPLOAD_MAX_PENDING: '2',
    GENPLAT_UPLOAD_MAX_INFLIGHT: '1',
    GENPLAT_UPLOAD_IDLE_S: '1',
  });
}, 60_000);
afterAll(async () => {
  await fx?.close();
});

const put = (url: string, body: Buffer) =>
  fetch(url, { method: 'PUT', body, headers: { 'content-type': 'image/png' } });
const idOf = (reference: string) => reference.slice('upload:'.length);

/** A PUT that declares `declared` bytes, sends `sent` of them, then stops writing (socket kept open). */
function stalledPut(url: string, sent: Buffer, declared: number) {
  const req = request(url, {
    method: 'PUT',
    headers: { 'content-type': 'image/png', 'content-length': String(declared) },
  });
  const closed = new Promise<string>((resolve) => {
    req.on('response', (res) => resolve(`answered ${res.statusCode}`));
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.on('close', () => resolve('closed'));
  });
  req.write(sent);
  return { closed, abort: () => req.destroy() };
}

describe('uploads in flight and idle bodies', () => {
  it("a stalled body is closed after the idle timeout and its rows deleted; meanwhile the caller's next upload is 429, another caller's goes on", async () => {
    const stalled = await requestLink(fx.a, 'image');
    const next = await requestLink(fx.a, 'image');
    const other = await requestLink(fx.b, 'image');
    // Past the sniff and the claim, into the store: 1.5 MiB of a declared 3 MiB, then silence.
    const bytes = png(3 * 1024 * 1024);
    const s = stalledPut(stalled.url, bytes.subarray(0, 1.5 * 1024 * 1024), bytes.length);
    try {
      // Wait (on the store, not a clock) until the stalled body holds its claim.
      const until = Date.now() + 20_000;
      while ((await fx.blobs.get(idOf(stalled.reference)))?.state !== 'receiving' && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((await fx.blobs.get(idOf(stalled.reference)))?.state).toBe('receiving');

      const busy = await put(next.url, png());
      expect(busy.status).toBe(429);
      expect(busy.headers.get('retry-after')).toBe('5');
      expect(((await busy.json()) as { error: string }).error).toMatch(/1 uploads of yours are already in progress/);
      expect((await put(other.url, png())).status).toBe(200);

      // Generous bound; the server closes it after 1 s of silence (without the timeout: Node's 300 s).
      const outcome = await Promise.race([
        s.closed,
        new Promise<string>((r) => setTimeout(() => r('still open after 20 s'), 20_000)),
      ]);
      expect(outcome).not.toBe('still open after 20 s');
      expect(outcome).not.toMatch(/^answered/);
    } finally {
      s.abort();
    }
    // What it stored is gone (the row and its 1 MiB chunks), and the caller's slot is free again.
    const gone = Date.now() + 10_000;
    while ((await fx.blobs.get(idOf(stalled.reference))) && Date.now() < gone) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await fx.blobs.get(idOf(stalled.reference))).toBeUndefined();
    expect(await chunkCount(fx.blobs, idOf(stalled.reference))).toBe(0);
    expect((await put(next.url, png())).status).toBe(200);
    expect(fx.logLines.some((l) => l.includes('the body stalled'))).toBe(true);
  }, 60_000);

  it('a body stalled before its first bytes is closed too, and its link stays usable', async () => {
    const l = await requestLink(fx.a, 'image');
    const s = stalledPut(l.url, png().subarray(0, 10), 4096);
    try {
      const outcome = await Promise.race([
        s.closed,
        new Promise<string>((r) => setTimeout(() => r('still open after 20 s'), 20_000)),
      ]);
      expect(outcome).not.toBe('still open after 20 s');
    } finally {
      s.abort();
    }
    expect((await fx.blobs.get(idOf(l.reference)))?.state).toBe('pending');
    expect((await put(l.url, png())).status).toBe(200);
  }, 60_000);
});

describe('pending upload links per caller', () => {
  it('the third unused link of a caller is refused; another caller is not; a used link frees its place', async () => {
    // Links of the tests above are used; start from none pending.
    fx.skew += UPLOAD_LINK_TTL_MS + 1;
    const first = await requestLink(fx.a, 'image');
    await requestLink(fx.a, 'audio');
    const refused = await fx.a.call('request_upload', { kind: 'image' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/already hold 2 unused upload links/);
    expect(text(refused)).toMatch(/Use one of the links already given/);
    await requestLink(fx.b, 'image');
    expect((await put(first.url, png())).status).toBe(200);
    await requestLink(fx.a, 'image');
  });
});
