/**
 * The upload page in a real browser (a system Chromium: test/helpers/chromium.ts, playwright-core): a file
 * dropped on the page → the upload reference shown → a job using it completes in the sandbox and the simulator
 * received identical bytes; the same link again → refused; an expired link → refused; a wrong type → refused in
 * the page (nothing sent) and, posted directly, on the server (0 bytes stored). No timing assertions.
 */
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UPLOAD_LINK_TTL_MS } from '../../src/files/uploads.js';
import { findChromium } from '../helpers/chromium.js';
import { text } from '../http/helpers.js';
import { MARKER, png, sha256 } from './media-bytes.js';
import {
  chunkCount,
  requestLink,
  shoppableImage,
  startUploadsFixture,
  type UploadsFixture,
} from './uploads-fixture.js';

// Page callbacks run in the browser; the test program is compiled without the DOM library.
declare const document: any;
declare const DataTransfer: any;
declare const File: any;

let fx: UploadsFixture;
let browser: Browser;
let page: Page;
/** PUT/POST requests the page sent (a refusal in the page must send none). */
let sent: string[] = [];

/** Drops a file made of `bytes` (base64) with `type` on the page's drop zone, as a person's drag would. */
async function drop(bytes: Buffer, name: string, type: string): Promise<void> {
  const dataTransfer = await page.evaluateHandle(
    ([b64, n, t]) => {
      const raw = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([raw], n, { type: t }));
      return dt;
    },
    [bytes.toString('base64'), name, type] as const,
  );
  await page.dispatchEvent('#drop', 'dragover', { dataTransfer });
  await page.dispatchEvent('#drop', 'drop', { dataTransfer });
}

beforeAll(async () => {
  const executablePath = findChromium();
  fx = await startUploadsFixture();
  browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-sync'],
  });
  page = await browser.newPage();
  page.on('request', (r) => {
    if (r.method() === 'PUT' || r.method() === 'POST') sent.push(r.url());
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await fx?.close();
});
beforeEach(() => {
  sent = [];
  fx.skew = 0;
  fx.sim.log.clear();
});

describe('the upload page in chromium', () => {
  it('a dropped file → the reference → a job that completes with identical bytes; the link then refused', async () => {
    const l = await requestLink(fx.a, 'image', 'serum.png');
    await page.goto(l.url);
    const bytes = png(1536 * 1024);
    await drop(bytes, 'serum.png', 'image/png');
    await page.waitForSelector('#done:not([hidden])', { timeout: 60_000 });
    expect(await page.textContent('#reference')).toBe(l.reference);
    expect(await page.getAttribute('#progress', 'value')).toBe('100');

    const r = await shoppableImage(fx.a, l.reference);
    expect(r.isError, text(r)).toBeFalsy();
    const got = fx.sim.fetched.entries().find((f) => f.field === 'image_url');
    expect(got).toMatchObject({ size: bytes.length, sha256: sha256(bytes), type: 'image/png' });
    expect(JSON.stringify(r)).not.toContain(MARKER);

    // The same link again: the page says so, and a PUT is refused.
    const again = await page.goto(l.url);
    expect(again?.status()).toBe(410);
    expect(await page.textContent('#closed')).toContain('already used');
    expect((await fetch(l.url, { method: 'PUT', body: png(), headers: { 'content-type': 'image/png' } })).status).toBe(
      410,
    );
  });

  it('an expired link is refused', async () => {
    const l = await requestLink(fx.a, 'image');
    fx.skew = UPLOAD_LINK_TTL_MS + 1000;
    const res = await page.goto(l.url);
    expect(res?.status()).toBe(410);
    expect(await page.textContent('#closed')).toContain('expired');
  });

  it('a wrong type is refused in the page (nothing sent) and, posted directly, on the server (0 bytes stored)', async () => {
    const l = await requestLink(fx.a, 'image');
    const id = l.reference.slice('upload:'.length);
    await page.goto(l.url);
    await drop(Buffer.from(`not an image ${MARKER}`), 'notes.txt', 'text/plain');
    await page.waitForFunction(() => document.getElementById('error').textContent !== '', undefined, {
      timeout: 30_000,
    });
    expect(await page.textContent('#error')).toContain('This is not image');
    expect(sent).toEqual([]);

    const direct = await fetch(l.url, {
      method: 'PUT',
      body: Buffer.from(`#!/bin/sh ${MARKER}`),
      headers: { 'content-type': 'image/png' },
    });
    expect(direct.status).toBe(415);
    expect(await chunkCount(fx.blobs, id)).toBe(0);
    expect(await fx.blobs.get(id)).toMatchObject({ state: 'pending', size: null });
  });

  it('the page runs under a strict CSP: nonce-only script and style, no other origin', async () => {
    const l = await requestLink(fx.a, 'video');
    const res = await page.goto(l.url);
    const csp = res?.headers()['content-security-policy'] ?? '';
    expect(csp).toMatch(/^default-src 'none'; script-src 'nonce-[^']+'; style-src 'nonce-[^']+'; connect-src 'self';/);
    expect(await page.getAttribute('#file', 'accept')).toBe('video/*');
  });

  it('no file content in any log line', () => {
    expect(fx.logLines.join('\n')).not.toContain(MARKER);
  });
});
