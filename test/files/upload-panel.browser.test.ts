/**
 * The upload panel of the picker View (issue 22 item 4) in chromium, embedded by the test MCP Apps host
 * (test/apps/browser-host.ts, which enforces the CSP the UI resource declares) over a real HTTP client: a chosen
 * file → request_upload through the host → PUT to the link (allowed by the View's connect-src, nothing else is)
 * → the conversation is told `upload:<id>`, whose stored bytes are the file's. The model never sees the bytes.
 */
import type { Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PICKER_URI } from '../../src/apps/uris.js';
import { type BrowserHost, startBrowserHost } from '../apps/browser-host.js';
import { MARKER, png, sha256 } from './media-bytes.js';
import { startUploadsFixture, type UploadsFixture } from './uploads-fixture.js';

declare const document: any;
declare const window: any;

let fx: UploadsFixture;
let host: BrowserHost;

async function viewFrame(): Promise<Frame> {
  for (let i = 0; i < 200; i++) {
    const f = host.page.frames().find((x) => x !== host.page.mainFrame());
    if (f && (await f.evaluate(() => document.readyState).catch(() => '')) === 'complete') return f;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no view frame');
}

beforeAll(async () => {
  fx = await startUploadsFixture();
  host = await startBrowserHost(fx.a.client);
}, 120_000);
afterAll(async () => {
  await host?.close();
  await fx?.close();
});

describe('the picker upload panel in chromium', () => {
  it('declares the upload origin as its only connect-src', async () => {
    const read = await fx.a.client.readResource({ uri: PICKER_URI });
    const csp = (read.contents[0] as { _meta?: { ui?: { csp?: { connectDomains?: string[] } } } })._meta?.ui?.csp;
    expect(csp?.connectDomains).toEqual([new URL(fx.rt.http.url).origin]);
  });

  it('a chosen file is uploaded and the conversation gets its upload:<id>, not its bytes', async () => {
    await host.show(PICKER_URI, await fx.a.call('list_avatars', {}));
    const frame = await viewFrame();
    const bytes = png(600 * 1024);
    await frame.setInputFiles('#upload-file', { name: 'me.png', mimeType: 'image/png', buffer: bytes });
    await host.page.waitForFunction(() => window.messages.length > 0, undefined, { timeout: 60_000 });
    const messages = (await host.page.evaluate(() => window.messages)) as { content: { text: string }[] }[];
    const said = messages[0]!.content[0]!.text;
    expect(said).toMatch(/^I uploaded "me\.png" \(image\): use upload:[A-Za-z0-9_-]+ in an image field\.$/);
    expect(said).not.toContain(MARKER);
    expect(await host.page.evaluate(() => window.toolCalls)).toEqual(['request_upload']);
    const id = /upload:([A-Za-z0-9_-]+)/.exec(said)![1]!;
    expect(await fx.blobs.get(id)).toMatchObject({ state: 'complete', size: bytes.length, sha256: sha256(bytes) });
    expect(await frame.textContent('#upload-status')).toBe(`Uploaded: upload:${id}`);
  });

  it('a file of another type is refused in the View, nothing requested or sent', async () => {
    await host.show(PICKER_URI, await fx.a.call('list_avatars', {}));
    const frame = await viewFrame();
    await frame.setInputFiles('#upload-file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('x') });
    await frame.waitForFunction(() => document.getElementById('upload-status').textContent !== '');
    expect(await frame.textContent('#upload-status')).toContain('nothing was sent');
    expect(await host.page.evaluate(() => window.toolCalls)).toEqual([]);
  });
});
