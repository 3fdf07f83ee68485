/**
 * The App carrier end to end (issue 28 item 5): a call held by the real HTTP runtime (policy "≥ 300 credits →
 * token:lead", static tokens) is approved with the App's approval card in a real Chromium, embedded by the test
 * host through the ext-apps bridge, the lead's client connected to the same runtime: the card's Approve calls
 * decide_approval with the View's nonce (carrier `app`), and exactly one POST follows.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_META, approvalCardMeta } from '../../src/approvals/app-meta.js';
import { withApprovalPolicy } from '../../src/approvals/load-policy.js';
import { JOB_VIEWER_URI } from '../../src/apps/uris.js';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { type BrowserHost, startBrowserHost } from '../apps/browser-host.js';
import { APPS_HOST } from '../helpers/harness.js';
import { connectClient, sc, type TestClient, text } from '../http/helpers.js';

declare const document: any;
const WAIT = { timeout: 90_000, polling: 250 } as const;
const TOKENS = { alice: 'alice-0123456789abcdef', lead: 'lead-0123456789abcdef' };

let sim: Simulator;
let rt: HttpRuntime;
let store: Store;
let dir: string;
let alice: TestClient;
let lead: TestClient;
let host: BrowserHost;
const posts = () => sim.log.entries().filter((e) => e.method === 'POST').length;

async function viewFrame(): Promise<Frame> {
  for (let i = 0; i < 200; i++) {
    const f = host.page.frames().find((x) => x !== host.page.mainFrame());
    if (f && (await f.evaluate(() => document.readyState).catch(() => '')) === 'complete') return f;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no view frame');
}

beforeAll(async () => {
  sim = await startSimulator({ timing: 'test' });
  setTrustedMediaOrigins([sim.origin]);
  dir = await mkdtemp(join(tmpdir(), 'genplat-held-app-'));
  const policy = join(dir, 'approvals.json');
  await writeFile(policy, JSON.stringify({ rules: [{ when: { credits_at_least: 300 }, approvers: ['token:lead'] }] }));
  const cfg = loadConfig(parseCli(['--http', '--port', '0']), {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: join(dir, 'state'),
    GENPLAT_HTTP_TOKEN: Object.entries(TOKENS)
      .map(([n, t]) => `${n}=${t}`)
      .join(','),
    GENPLAT_APPROVALS: policy,
  });
  const config: Config = await withApprovalPolicy({
    ...cfg,
    vendors: sim.vendors,
    logLevel: 'error',
    confirm: { mode: 'never' },
  });
  rt = await startHttpRuntime(
    config,
    createLogger('error', () => {}),
    { pollIntervalMs: 20 },
  );
  store = await openSqliteStore(config.stateDir);
  alice = await connectClient(rt.http.url, TOKENS.alice);
  lead = await connectClient(rt.http.url, TOKENS.lead, { capabilities: APPS_HOST });
  host = await startBrowserHost(lead.client);
}, 120_000);

afterAll(async () => {
  await host?.close();
  await alice?.close().catch(() => {});
  await lead?.close().catch(() => {});
  await store?.close();
  await rt?.close();
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a held call approved with the App card in chromium', () => {
  it("the lead's Approve: one decision on carrier app, exactly one POST", async () => {
    const r = await alice.call('create_shoppable_video', {
      category: 'gadgets',
      format: 'unboxing',
      image_urls: ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png'],
      context: 'desk setup, approved in the App',
    });
    expect(sc(r).status, text(r)).toBe('approval_required');
    const id = sc(r).handle!.slice('approval:'.length);
    const a = (await store.approval(id))!;
    const shown: CallToolResult = {
      content: [{ type: 'text', text: 'This call needs an approval.' }],
      _meta: { [APPROVAL_META]: approvalCardMeta(a, 'token:lead', Date.now()) },
    };
    await host.show(JOB_VIEWER_URI, shown);
    const f = await viewFrame();
    await f.waitForSelector('#approve:not([disabled])', { timeout: 30_000 });
    expect(posts()).toBe(0);
    await f.locator('#approve').click();
    await f.waitForFunction(
      () => document.querySelector('#consent')?.dataset.approvalState === 'approved',
      undefined,
      WAIT,
    );
    for (let i = 0; i < 1200 && posts() === 0; i++) await new Promise((res) => setTimeout(res, 25));
    expect(posts()).toBe(1);
    await rt.sweep();
    expect(posts()).toBe(1);
    expect((await store.approval(id))?.decisions).toMatchObject([
      { by: 'token:lead', carrier: 'app', decision: 'approve' },
    ]);
  }, 180_000);
});
