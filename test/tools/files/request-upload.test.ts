/**
 * request_upload (issue 22 item 4). On a local (stdio) server it refuses, pointing at local paths (the harness
 * has no owner and no file services); over HTTP its whole path — link, page, PUT, single use, expiry, owner —
 * is test/files/uploads-http.test.ts and test/files/upload-page.browser.test.ts. Here: the stdio answer, the
 * input rules, and the HTTP answer's shape, pinned whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LOCAL_BYTES } from '../../../src/files/limits.js';
import { startUploadsFixture, type UploadsFixture } from '../../files/uploads-fixture.js';
import { type Harness, startHarness, text } from '../../helpers/harness.js';
import { sc } from '../../http/helpers.js';

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
  it('on stdio: refused, naming local paths as the way; nothing sent', async () => {
    const r = await h.call('request_upload', { kind: 'image' });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('request_upload works on a server reached over HTTP');
    expect(text(r)).toContain('local path');
    expect(h.sim.log.entries()).toHaveLength(0);
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
