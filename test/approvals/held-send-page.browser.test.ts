/**
 * The page carrier end to end (issue 28 item 5): a call held by the real HTTP runtime (static token
 * `token:alice`, policy "≥ 300 credits → the lead") is approved on the signed approval page in a real Chromium,
 * the lead signing in at a real OpenID provider (test/auth/idp.ts), through the runtime's own desk: exactly one
 * POST follows. A third person signing in is refused and sends nothing.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withApprovalPolicy } from '../../src/approvals/load-policy.js';
import { approvalLink } from '../../src/approvals/page/link.js';
import { approvalPageRoute } from '../../src/approvals/page/route.js';
import { oidcOwner } from '../../src/auth/identity.js';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { startIdp, type TestIdp } from '../auth/idp.js';
import { findChromium } from '../helpers/chromium.js';
import { connectClient, type TestClient } from '../http/helpers.js';

const ALICE = 'alice-0123456789abcdef';
const PUBLIC_URL = 'https://genplat.example';
const SHOPPABLE = (n: number) => ({
  category: 'gadgets',
  format: 'unboxing',
  image_urls: ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png'],
  context: `desk setup, approved on the page ${n}`,
});

let idp: TestIdp;
let sim: Simulator;
let rt: HttpRuntime;
let store: Store;
let dir: string;
let server: Server;
let base: string;
let browser: Browser;
let alice: TestClient;
const posts = () => sim.log.entries().filter((e) => e.method === 'POST').length;

beforeAll(async () => {
  idp = await startIdp({ resources: [], scopes: [] });
  sim = await startSimulator({ timing: 'test' });
  setTrustedMediaOrigins([sim.origin]);
  dir = await mkdtemp(join(tmpdir(), 'genplat-held-page-'));
  const policy = join(dir, 'approvals.json');
  await writeFile(
    policy,
    JSON.stringify({ rules: [{ when: { credits_at_least: 300 }, approvers: [oidcOwner(idp.issuer, 'lead')] }] }),
  );
  // The page over the runtime's own desk, on a loopback origin the browser reaches (GENPLAT_PUBLIC_URL must be
  // https, so the runtime's own mount is not reachable here; the route and the desk are the same code).
  const routes: { route?: ReturnType<typeof approvalPageRoute> } = {};
  server = createServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (routes.route && (await routes.route(req, res, path))) return;
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const reg = await fetch(`${idp.issuer}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: [`${base}/approve/callback`],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    }),
  });
  const client = (await reg.json()) as { client_id: string; client_secret: string };
  const cfg = loadConfig(parseCli(['--http', '--port', '0']), {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: join(dir, 'state'),
    GENPLAT_HTTP_TOKEN: `alice=${ALICE}`,
    GENPLAT_APPROVALS: policy,
    // The page is on: its link is in the approval_required answer (the browser follows its path on `base`).
    GENPLAT_PUBLIC_URL: PUBLIC_URL,
    GENPLAT_OAUTH_ISSUER: idp.issuer,
    GENPLAT_OAUTH_RESOURCE: `${PUBLIC_URL}/mcp`,
    GENPLAT_OAUTH_CLIENT_ID: client.client_id,
    GENPLAT_OAUTH_CLIENT_SECRET: client.client_secret,
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
  alice = await connectClient(rt.http.url, ALICE);
  routes.route = approvalPageRoute({
    desk: rt.desk,
    key: () => store.consentKey(),
    publicUrl: base,
    oidc: { issuer: idp.issuer, clientId: client.client_id, clientSecret: client.client_secret },
    log: createLogger('error', () => {}),
  });
  browser = await chromium.launch({
    executablePath: findChromium(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-sync'],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await alice?.close().catch(() => {});
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await store?.close();
  await rt?.close();
  await sim?.close();
  await idp?.close();
  await rm(dir, { recursive: true, force: true });
});

async function heldLink(n: number): Promise<{ id: string; link: string }> {
  const r = await alice.call('create_shoppable_video', SHOPPABLE(n));
  const env = r.structuredContent as { status: string; handle: string };
  expect(env.status).toBe('approval_required');
  const id = env.handle.slice('approval:'.length);
  const a = await store.approval(id);
  // The answer carries the page's link (GENPLAT_PUBLIC_URL); the browser follows its signed path here.
  const given = (env as { details?: { approval_page?: string } }).details?.approval_page;
  expect(given).toBe(approvalLink(PUBLIC_URL, id, a!.expiresAt, await store.consentKey()));
  return { id, link: `${base}${new URL(given!).pathname}` };
}

describe('a held call approved on the page in chromium', () => {
  it('a third person signed in is refused; the lead approves: exactly one POST, by the lead on carrier page', async () => {
    sim.log.clear();
    const { id, link } = await heldLink(1);

    // Someone signed in who is not listed (a third person): refused, no buttons, nothing sent.
    idp.nextUser = 'bob';
    const mine = await browser.newContext();
    const own = await mine.newPage();
    expect((await own.goto(link))?.status()).toBe(403);
    expect(await own.$('#approve')).toBeNull();
    await mine.close();
    expect(posts()).toBe(0);

    idp.nextUser = 'lead';
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    expect((await page.goto(link))?.status()).toBe(200);
    await page.click('#approve');
    await page.waitForSelector('#message');
    expect(await page.textContent('#message')).toMatch(/^Approved\./);
    await ctx.close();
    for (let i = 0; i < 1200 && posts() === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(posts()).toBe(1);
    await rt.sweep();
    expect(posts()).toBe(1);
    const stored = await store.approval(id);
    expect(stored?.decisions).toMatchObject([{ by: oidcOwner(idp.issuer, 'lead'), carrier: 'page' }]);
  }, 120_000);
});
