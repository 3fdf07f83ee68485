/**
 * request_upload (issue 22 item 4, issue 29 items 7-8). On a local (stdio) server it is not listed (local paths
 * are the way there; a call is refused); over HTTP its whole path — link, page, PUT, single use, expiry, owner —
 * is test/files/uploads-http.test.ts and test/files/upload-page.browser.test.ts. Here: stdio, the input rules,
 * the refusal when nothing could serve an upload to the platform, and the HTTP answer's shape, pinned whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LOCAL_BYTES } from '../../../src/files/limits.js';
import { UPLOAD_CANNOT_REACH_PLATFORM, UPLOAD_LOOPBACK_NOTE } from '../../../src/files/wording.js';
import { startUploadsFixture, type UploadsFixture } from '../../files/uploads-fixture.js';
import { type Harness, startHarness, text } from '../../helpers/harness.js';
import { sc, startHttpFixture, TOKEN_A } from '../../http/helpers.js';

let h: Harness;
let fx: UploadsFixture;
beforeAll(async () => {
  h = await startHarness();
  fx = await startUploadsFixture();
}, 60_000);
afterAll(async () => {
  await h?.close();
  await fx?.close();
});

describe('request_upload', () => {
  it('on stdio: not listed; a call is refused; nothing sent', async () => {
    expect((await h.client.listTools()).tools.map((t) => t.name)).not.toContain('request_upload');
    // An unlisted tool is unknown to the server: the SDK answers "not found" (a protocol error or an error result).
    const r = await h.call('request_upload', { kind: 'image' }).catch((e: Error) => e);
    expect(r instanceof Error ? r.message : r.isError && text(r)).toMatch(/request_upload not found/);
    expect(h.sim.log.entries()).toHaveLength(0);
  });

  it('over HTTP with nothing to serve an upload to the platform (no public URL, no bucket): refused, no link', async () => {
    const http = await startHttpFixture();
    try {
      const c = await http.connect(TOKEN_A);
      const r = await c.call('request_upload', { kind: 'image' });
      expect(r.isError).toBe(true);
      expect(text(r)).toContain(UPLOAD_CANNOT_REACH_PLATFORM.message);
      expect(text(r)).toContain('GENPLAT_PUBLIC_URL');
      await c.close();
    } finally {
      await http.close();
    }
  });

  it('refuses an unknown kind by name, before anything is recorded', async () => {
    const r = await fx.a.call('request_upload', { kind: 'document' });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('kind');
  });

  it('over HTTP: a link, its expiry, the reference it will yield and the cap', async () => {
    const s = sc(await fx.a.call('request_upload', { kind: 'audio', filename: '../../etc/voice sample.wav' }));
    const id = String(s.reference).slice('upload:'.length);
    expect(s).toEqual({
      url: expect.stringMatching(new RegExp(`^${new URL(fx.rt.http.url).origin}/upload/${id}\\.[A-Za-z0-9_-]{22}$`)),
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      reference: `upload:${id}`,
      kind: 'audio',
      max_bytes: MAX_LOCAL_BYTES.audio,
      // The fixture listens on 127.0.0.1 and has no GENPLAT_PUBLIC_URL: only this machine opens the link.
      note: UPLOAD_LOOPBACK_NOTE,
    });
    // The name hint is stored as a base name of safe characters only.
    expect(await fx.blobs.get(id)).toMatchObject({
      owner: expect.stringMatching(/^http-/),
      kind: 'audio',
      state: 'pending',
      filename: 'voice sample.wav',
    });
  });
});
