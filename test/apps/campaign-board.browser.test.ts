/**
 * The campaign board in a real browser (system Chromium, test/helpers/chromium.ts), embedded by the test host
 * through the ext-apps bridge, over the sandbox simulator: a finished campaign shows every variant playable, and
 * the filters narrow the grid; picking 3 and confirming the upscale is one consent (the board's card) and exactly
 * 3 upscale POSTs, and a second click sends nothing. No timing assertions: generous waits only.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOARD_URI, JOB_VIEWER_URI } from '../../src/apps/uris.js';
import { APPS_HOST, type Harness, startHarness, structured, text } from '../helpers/harness.js';
import { type BrowserHost, startBrowserHost } from './browser-host.js';

// Page globals, declared loosely: the test program is compiled without the DOM library.
declare const document: any;

const WAIT = { timeout: 90_000, polling: 250 } as const;
const AVATARS = ['av_ava', 'av_marcus', 'av_lucia'];
const SCRIPTS = ['Hot coffee all day.', 'Still hot at five.'];
/** 3 avatars × 2 scripts = 6 variants. */
const N = AVATARS.length * SCRIPTS.length;
const CAMPAIGN = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: SCRIPTS[0] } }],
  vary: { avatar_id: AVATARS, voice_script: SCRIPTS },
};

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

/** Starts the campaign (redeeming the quote when the config asks for one) and returns get_job once every item is final. */
async function finishedCampaign(): Promise<CallToolResult> {
  let r = await h.call('create_campaign', CAMPAIGN);
  const q = structured(r);
  if (q.status === 'confirmation_required') {
    r = await h.call('create_campaign', { ...CAMPAIGN, confirmation_token: q.confirmation_token });
  }
  const handle = structured(r).handle!;
  expect(handle, text(r)).toMatch(/^campaign:/);
  for (let i = 0; i < 200; i++) {
    const got = await h.call('get_job', { handle });
    if (structured(got).status === 'completed') return got;
    await new Promise((res) => setTimeout(res, 300));
  }
  throw new Error(`${handle} did not finish`);
}

describe('campaign board in chromium', () => {
  beforeAll(async () => {
    h = await startHarness({ config: { maxCreditsPerDay: 10_000 } });
    host = await startBrowserHost(h.client);
  }, 120_000);
  afterAll(async () => {
    await host?.close();
    await h?.close();
  });

  it('a finished campaign shows N playable variants with their varied fields; filters narrow the grid', async () => {
    const done = await finishedCampaign();
    await host.show(BOARD_URI, done);
    const f = await viewFrame();
    // Every variant's video actually loads from the sandbox (readyState ≥ HAVE_CURRENT_DATA).
    await f.waitForFunction(
      (n) => {
        const vids = [...document.querySelectorAll('section.item video')];
        return vids.length === n && vids.every((v: any) => v.readyState >= 2);
      },
      N,
      WAIT,
    );
    const srcs = await f.evaluate(() =>
      [...document.querySelectorAll('section.item video')].map((v: any) => v.currentSrc),
    );
    for (const s of srcs) expect(s).toMatch(new RegExp(`^${h.sim.origin}/media/.+\\.mp4$`));
    expect(new Set(srcs).size).toBe(N);
    const avatars = await f.evaluate(() =>
      [...document.querySelectorAll('section.item [data-field="avatar_id"]')].map((d: any) => d.textContent),
    );
    expect(avatars.sort()).toEqual(AVATARS.flatMap((a) => SCRIPTS.map(() => `avatar_id: ${a}`)).sort());
    await f.selectOption('#filter-avatar_id', 'av_marcus');
    expect(await f.locator('section.item').count()).toBe(SCRIPTS.length);
    await f.selectOption('#filter-avatar_id', '');
    expect(await f.locator('section.item').count()).toBe(N);
    // Picking enables the button and names the picked handles to the conversation (no paid call from the board).
    const boxes = f.locator('section.item input.pick');
    for (let i = 0; i < 3; i++) await boxes.nth(i).check();
    await f.locator('#tell').click();
    await host.page.waitForFunction(() => (globalThis as unknown as { messages: unknown[] }).messages.length > 0);
    const msg = await host.page.evaluate(() =>
      JSON.stringify((globalThis as unknown as { messages: unknown[] }).messages),
    );
    expect(msg).toMatch(/I picked 3: (job:|[^,]+), /);
  }, 240_000);

  it('get_job of the campaign handle opens the job viewer, which shows the same board', async () => {
    const done = await finishedCampaign();
    const listed = await h.client.listTools();
    const meta = listed.tools.find((t) => t.name === 'get_job')?._meta as { ui?: { resourceUri?: string } };
    expect(meta?.ui?.resourceUri).toBe(JOB_VIEWER_URI);
    await host.show(JOB_VIEWER_URI, done);
    const f = await viewFrame();
    await f.waitForFunction(
      (n) => {
        const vids = [...document.querySelectorAll('.gp-board section.item video')];
        return vids.length === n && vids.every((v: any) => v.readyState >= 2);
      },
      N,
      WAIT,
    );
    // The board's own controls, not a job card: filters and picks.
    expect(await f.locator('section.job').count()).toBe(0);
    await f.selectOption('#filter-avatar_id', 'av_lucia');
    expect(await f.locator('section.item').count()).toBe(SCRIPTS.length);
  }, 240_000);
});

describe("the board's paid step in chromium: upscale the picked", () => {
  const GESTURES = {
    items: [{ tool: 'animate_gesture', arguments: { prompt: 'waves', image_url: 'https://example.com/p.png' } }],
    vary: { prompt: ['waves', 'nods', 'points', 'smiles'] },
  };
  const UPSCALES = { method: 'POST', path: '/upscale/generate' } as const;

  beforeAll(async () => {
    // Every paid call asks; only a person's click (or form) confirms: the board's card is the consent.
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

  it('create_campaign opens the board; picking 3 and confirming = one consent and exactly 3 upscale POSTs; a second click sends nothing', async () => {
    const quote = await h.call('create_campaign', GESTURES);
    expect(structured(quote).status, text(quote)).toBe('confirmation_required');
    // The tool links the board: a host opens it on this result, where the quote is the consent card.
    const listed = await h.client.listTools();
    const meta = listed.tools.find((t) => t.name === 'create_campaign')?._meta as { ui?: { resourceUri?: string } };
    expect(meta?.ui?.resourceUri).toBe(BOARD_URI);
    await host.show(BOARD_URI, quote);
    const f = await viewFrame();
    await f.waitForSelector('#confirm:not([disabled])', { timeout: 30_000 });
    await f.locator('#confirm').click();
    // Confirmed, the board follows the new campaign until its 4 videos are playable.
    await f.waitForFunction(
      () =>
        [...document.querySelectorAll('section.item video')].length === 4 &&
        [...document.querySelectorAll('section.item')].every((s: any) => s.dataset.status === 'completed'),
      undefined,
      WAIT,
    );
    expect(h.sim.log.count({ method: 'POST', path: '/gestures/generate' })).toBe(4);

    h.sim.log.clear();
    // The attempts run a while, so the second clicks happen while they are active.
    h.sim.jobs.scriptNext({ durationMs: 5_000 }, 3);
    const boxes = f.locator('section.item input.pick');
    for (let i = 0; i < 3; i++) await boxes.nth(i).check();
    await f.locator('#up-model').fill('sandbox-precision-1');
    await f.selectOption('#up-res', '1080p');
    await f.locator('#upscale').click();
    // One consent card for the picked set: 3 upscale_video items, unbounded (upscale quotes are informational).
    await f.waitForSelector('#consent #confirm:not([disabled])', { timeout: 60_000 });
    const summary = await f.locator('#consent #summary').textContent();
    expect(summary).toMatch(/campaign of 3 items \(upscale_video\)/);
    expect(h.sim.log.count(UPSCALES)).toBe(0);
    await f.locator('#consent #confirm').click();
    await f.waitForSelector('[data-started^="campaign:"]', { timeout: 60_000 });
    // A second click: the spent Confirm, then the Upscale button again (a fresh quote of the same picks).
    await f.locator('#consent #confirm').click({ force: true });
    await f.locator('#upscale').click();
    await f.waitForSelector('#upscale-error', { timeout: 60_000 });
    expect(await f.locator('#upscale-error').textContent()).toMatch(/still active/);
    const started = await f.locator('[data-started]').first().getAttribute('data-started');
    const w = await h.call('wait_for_jobs', { handles: [started!], max_wait_s: 30 });
    expect(text(w)).toMatch(/3 of 3 done/);
    expect(h.sim.log.count(UPSCALES)).toBe(3);
    const calls = await host.page.evaluate(() => (globalThis as unknown as { toolCalls: string[] }).toolCalls);
    // Two Confirm clicks reached the server (the campaign, then the upscale); the spent one never did.
    expect(calls.filter((c) => c === 'confirm_paid_call')).toHaveLength(2);
    const upscales = (await h.jobs.list({})).filter((j) => j.tool === 'upscale_video');
    expect(upscales).toHaveLength(3);
    expect(upscales.every((j) => j.consent === 'click')).toBe(true);
  }, 300_000);
});
