/**
 * The Views in a real browser (a system Chromium: test/helpers/chromium.ts; without one these tests fail, saying
 * how to get one), embedded by a test host through the ext-apps bridge and talking to the real server over the
 * sandbox simulator. No timing assertions: generous waits only.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_VIEWER_URI, PICKER_URI } from '../../src/apps/uris.js';
import { billablePosts } from '../helpers/examples.js';
import { APPS_HOST, type Harness, startHarness, structured, text } from '../helpers/harness.js';
import { type BrowserHost, startBrowserHost } from './browser-host.js';

// These callbacks run in the page; the test program is compiled without the DOM library (it would leak into
// every file), so the page globals they touch are declared loosely here.
declare const document: any;
type HTMLImageElement = any;

const SHOTS = process.env.GENPLAT_SCREENSHOTS; // e.g. `docs/screenshots`: also write the README's pictures
const WAIT = { timeout: 90_000, polling: 250 } as const;

let h: Harness;
let host: BrowserHost;

async function viewFrame(): Promise<Frame> {
  for (let i = 0; i < 200; i++) {
    const f = host.page.frames().find((x) => x !== host.page.mainFrame());
    if (f && (await f.evaluate(() => document.readyState).catch(() => '')) === 'complete') return f;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no view frame');
}

async function shot(name: string): Promise<void> {
  if (SHOTS) await host.page.locator('#view').screenshot({ path: `${SHOTS}/${name}.png` });
}

async function completed(handle: string): Promise<CallToolResult> {
  for (let i = 0; i < 30; i++) {
    const r = await h.call('get_job', { handle });
    if (structured(r).status === 'completed') return r;
    await new Promise((res) => setTimeout(res, 300));
  }
  throw new Error(`${handle} did not complete`);
}

describe('MCP Apps in chromium', () => {
  beforeAll(async () => {
    h = await startHarness();
    host = await startBrowserHost(h.client);
  }, 120_000);
  afterAll(async () => {
    await host?.close();
    await h?.close();
  });

  it('the job viewer plays a completed talking video from the sandbox', async () => {
    const sub = structured(await h.call('create_talking_video', { avatar_id: 'av_marcus', voice_script: 'Play me.' }));
    const done = await completed(sub.handle!);
    await host.show(JOB_VIEWER_URI, done);
    const f = await viewFrame();
    await f.waitForFunction(() => (document.querySelector('video')?.readyState ?? 0) >= 2, undefined, WAIT);
    const src = await f.evaluate(() => document.querySelector('video')!.currentSrc);
    expect(src).toMatch(new RegExp(`^${h.sim.origin}/media/.+\\.mp4$`));
    await f.evaluate(() => {
      const v = document.querySelector('video')!;
      v.muted = true;
      return v.play();
    });
    await f.waitForFunction(() => document.querySelector('video')!.currentTime > 0, undefined, WAIT);
    await f.evaluate(() => document.querySelector('video')!.pause());
    await shot('job-viewer');
  }, 180_000);

  it('a running job shows progress, then turns into the player by itself (the View polls get_job)', async () => {
    // Long enough that the first View poll (7 s) still sees it running on a loaded box.
    h.sim.jobs.scriptNext({ durationMs: 9_000 });
    const r = await h.call('create_talking_video', { avatar_id: 'av_marcus', voice_script: 'Wait for me.' });
    expect(structured(r).status).toBe('submitted');
    await host.show(JOB_VIEWER_URI, r);
    const f = await viewFrame();
    await f.waitForSelector('section.job progress', { timeout: 30_000 });
    await f.waitForFunction(() => (document.querySelector('video')?.readyState ?? 0) >= 2, undefined, WAIT);
    expect(await f.locator('section.job progress').count()).toBe(0);
    expect(await host.page.evaluate(() => (globalThis as unknown as { toolCalls: string[] }).toolCalls)).toContain(
      'get_job',
    );
  }, 180_000);

  it('the picker shows the sandbox avatars with thumbnails, filters, and tells the conversation the choice', async () => {
    const r = await h.call('list_avatars', {});
    const n = structured(r).count as number;
    await host.show(PICKER_URI, r, 'dark');
    const f = await viewFrame();
    await f.waitForFunction(
      (count) => {
        const imgs = [...document.querySelectorAll('.item img')] as HTMLImageElement[];
        return imgs.length === count && imgs.every((i) => i.complete && i.naturalWidth > 0);
      },
      n,
      WAIT,
    );
    expect(await f.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await shot('picker');
    await f.selectOption('#gender', 'Female');
    const female = await f.locator('.item').count();
    expect(female).toBeGreaterThan(0);
    expect(female).toBeLessThan(n);
    await f.locator('.item button.choose').first().click();
    await host.page.waitForFunction(() => (globalThis as unknown as { messages: unknown[] }).messages.length > 0);
    const msg = await host.page.evaluate(() =>
      JSON.stringify((globalThis as unknown as { messages: unknown[] }).messages),
    );
    expect(msg).toMatch(/avatar_id: av_/);
  }, 180_000);

  it('a voice preview plays', async () => {
    const r = await h.call('list_voices', {});
    await host.show(PICKER_URI, r);
    const f = await viewFrame();
    await f.waitForSelector('.item audio', { timeout: 30_000 });
    await f.evaluate(() => document.querySelector('audio')!.play());
    await f.waitForFunction(() => document.querySelector('audio')!.currentTime > 0, undefined, WAIT);
  }, 180_000);
});

describe('consent card in chromium', () => {
  beforeAll(async () => {
    h = await startHarness({
      config: { confirm: { mode: 'always' }, consent: 'human' },
      clientCapabilities: APPS_HOST,
    });
    host = await startBrowserHost(h.client);
  }, 120_000);
  afterAll(async () => {
    await host?.close();
    await h?.close();
  });

  it('the card shows every field sent and the bound; a 500-character script folds, whole, never cut', async () => {
    const script = `${'Every word of this script is read aloud and paid for. '.repeat(10).slice(0, 499)}.`;
    const quote = await h.call('create_talking_video', { avatar_id: 'av_marcus', voice_script: script });
    expect(structured(quote).status, text(quote)).toBe('confirmation_required');
    await host.show(JOB_VIEWER_URI, quote);
    const f = await viewFrame();
    await f.waitForSelector('#fields', { timeout: 30_000 });
    const fields = await f.evaluate(() =>
      [...document.querySelectorAll('#fields li')].map((li: any) => ({
        name: li.dataset.field,
        summary: li.querySelector('summary')?.textContent ?? null,
        full: (li.querySelector('.full') ?? li.querySelector('.value')).textContent,
      })),
    );
    expect(fields).toEqual([
      { name: 'avatar_id', summary: null, full: 'av_marcus' },
      {
        name: 'voice_script',
        summary: `voice_script: ${script.slice(0, 120)}… (380 more characters, show all)`,
        full: script,
      },
    ]);
    // Opened, the whole script is on screen (wrapped, not clipped).
    await f.locator('#fields details summary').click();
    expect(await f.locator('#fields details .full').isVisible()).toBe(true);
    expect(await f.locator('#bound').textContent()).toMatch(
      /^at most [\d,]+ credits .*, proven from published prices$/,
    );
    expect(billablePosts(h.sim)).toBe(0);
  }, 180_000);

  it('a Confirm click sends exactly one POST; a second click none', async () => {
    const quote = await h.call('create_talking_video', { avatar_id: 'av_marcus', voice_script: 'Click to pay.' });
    expect(structured(quote).status, text(quote)).toBe('confirmation_required');
    h.sim.log.clear();
    await host.show(JOB_VIEWER_URI, quote);
    const f = await viewFrame();
    await f.waitForSelector('#confirm:not([disabled])', { timeout: 30_000 });
    await shot('consent-card');
    expect(billablePosts(h.sim)).toBe(0);
    await f.locator('#confirm').click();
    await f.waitForSelector('section.job', { timeout: 60_000 });
    await f.locator('#confirm').click({ force: true });
    await new Promise((r) => setTimeout(r, 1000));
    expect(billablePosts(h.sim)).toBe(1);
    const calls = await host.page.evaluate(() => (globalThis as unknown as { toolCalls: string[] }).toolCalls);
    expect(calls.filter((c) => c === 'confirm_paid_call')).toHaveLength(1);
    const rec = (await h.jobs.list({})).find((j) => j.tool === 'create_talking_video');
    expect(rec?.consent).toBe('click');
  }, 180_000);
});

// Issue 30 item 6: a quote-only credential's quote has no token, so its card shows the quote and why, and offers
// no Confirm (the click could not start anything anyway: the guard asks no carrier for that credential).
describe("a quote-only credential's consent card in chromium", () => {
  beforeAll(async () => {
    h = await startHarness({ access: 'quote', config: { confirm: { mode: 'always' } }, clientCapabilities: APPS_HOST });
    host = await startBrowserHost(h.client);
  }, 120_000);
  afterAll(async () => {
    await host?.close();
    await h?.close();
  });

  it('shows the quote and the reason, with Confirm disabled; a forced click sends nothing', async () => {
    const quote = await h.call('create_talking_video', { avatar_id: 'av_marcus', voice_script: 'Plan only.' });
    expect(structured(quote).status, text(quote)).toBe('confirmation_required');
    expect(structured(quote).confirmation_token).toBeUndefined();
    await host.show(JOB_VIEWER_URI, quote);
    const f = await viewFrame();
    await f.waitForSelector('#consent', { timeout: 30_000 });
    expect(await f.locator('#consent').textContent()).toMatch(/may quote but not spend/);
    expect(await f.locator('#confirm').isDisabled()).toBe(true);
    await f.locator('#confirm').click({ force: true });
    const calls = await host.page.evaluate(() => (globalThis as unknown as { toolCalls: string[] }).toolCalls);
    expect(calls.filter((c) => c === 'confirm_paid_call')).toHaveLength(0);
    expect(billablePosts(h.sim)).toBe(0);
  }, 180_000);
});
