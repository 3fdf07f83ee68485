/**
 * The App's approval card (issue 28 item 6, carrier a) in a real Chromium, embedded by the test host through the
 * ext-apps bridge, against the real server signed in as `token:lead` (the harness's HTTP-mode owner): the card
 * shows the held call, its Approve calls `decide_approval` with the View's nonce, and the store records one
 * decision by the lead on carrier `app`. Nothing is POSTed to the platform. No timing assertions.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_META, approvalCardMeta } from '../../src/approvals/app-meta.js';
import { JOB_VIEWER_URI } from '../../src/apps/uris.js';
import { consentCard } from '../../src/paid/consent-card.js';
import { APPS_HOST, type Harness, startHarness } from '../helpers/harness.js';
import { newApproval } from '../store/approvals-suite.js';
import { type BrowserHost, startBrowserHost } from './browser-host.js';

declare const document: any;
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

const card = consentCard({
  tool: 'create_talking_video',
  body: { avatar_id: 'av_marcus', voice_script: 'Approve me.' },
  estimate: { credits: 400, api_units: 4, basis: 'test', bounded: true },
  summary: 'a talking video',
});

async function held() {
  const now = Date.now();
  return h.jobs.createApproval(
    newApproval({
      request: { card },
      requirements: [{ rule: 'big spend', approvers: ['token:lead'], required: 1 }],
      approvers: ['token:lead'],
      createdAt: now,
      expiresAt: now + 3_600_000,
    }),
  );
}

const shown = (meta: unknown): CallToolResult => ({
  content: [{ type: 'text', text: 'This call needs an approval.' }],
  _meta: { [APPROVAL_META]: meta },
});

describe('the approval card in chromium', () => {
  beforeAll(async () => {
    h = await startHarness({
      owner: 'token:lead',
      clientCapabilities: APPS_HOST,
      config: { approvalsFile: '/etc/genplat/approvals.json' },
    });
    host = await startBrowserHost(h.client);
  }, 120_000);
  afterAll(async () => {
    await host?.close();
    await h?.close();
  });

  it('Approve records one decision by the signed-in approver on carrier app; nothing is POSTed', async () => {
    const a = await held();
    await host.show(JOB_VIEWER_URI, shown(approvalCardMeta(a, 'token:lead', Date.now())));
    const f = await viewFrame();
    await f.waitForSelector('#approve:not([disabled])', { timeout: 30_000 });
    expect(await f.locator('#requester').textContent()).toContain('Alice (token:alice)');
    expect(await f.locator('[data-field="voice_script"]').textContent()).toContain('Approve me.');
    await f.locator('#approve').click();
    await f.waitForFunction(
      () => document.querySelector('#consent')?.dataset.approvalState === 'approved',
      undefined,
      WAIT,
    );
    expect(await f.locator('#approve').count()).toBe(0);
    const stored = await h.jobs.approval(a.id);
    expect(stored?.state).toBe('approved');
    expect(stored?.decisions).toMatchObject([{ by: 'token:lead', carrier: 'app', decision: 'approve' }]);
    expect(h.sim.log.entries().filter((e) => e.method === 'POST')).toHaveLength(0);
  }, 180_000);

  it('shows no buttons to a viewer who may not decide (the requester)', async () => {
    const a = await held();
    await host.show(JOB_VIEWER_URI, shown(approvalCardMeta(a, 'token:alice', Date.now())));
    const f = await viewFrame();
    // This approval's card (not the previous test's): its handle, still pending, and no buttons.
    await f.waitForFunction(
      (handle: string) =>
        document.querySelector('#consent .handle')?.textContent === handle &&
        document.querySelector('#consent')?.dataset.approvalState === 'pending',
      `approval:${a.id}`,
      WAIT,
    );
    expect(await f.locator('#approve').count()).toBe(0);
    expect((await h.jobs.approval(a.id))?.decisions).toEqual([]);
  }, 180_000);
});
