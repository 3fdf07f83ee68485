/**
 * The approval page (issue 28 item 6, carrier c) in a real Chromium (test/helpers/chromium.ts) against the real
 * OpenID provider the OAuth tests run (test/auth/idp.ts: `oidc-provider`, code + PKCE), our route mounted on a
 * plain loopback HTTP server, and the in-memory desk of this folder (memory-desk.ts) counting what the page
 * hands it. One browser; a fresh context per person, so each signs in at the provider afresh.
 *
 * Done when (issue 28): the lead approves → exactly one decision, by `oidcOwner(issuer, 'lead')`; the requester,
 * a third person, a replayed link or POST after the decision, and an expired link → no decision.
 */

import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVE_PREFIX, approvalLink } from '../../src/approvals/page/link.js';
import { approvalPageRoute } from '../../src/approvals/page/route.js';
import { formToken, openSession, SESSION_COOKIE } from '../../src/approvals/page/session.js';
import { oidcOwner } from '../../src/auth/identity.js';
import { estimate } from '../../src/jobs/envelope.js';
import { createLogger } from '../../src/log.js';
import { consentCard } from '../../src/paid/consent-card.js';
import { startIdp, type TestIdp } from '../auth/idp.js';
import { findChromium } from '../helpers/chromium.js';
import { MemoryDesk } from './memory-desk.js';

// The page's globals touched in page callbacks (the test program is compiled without the DOM library).
declare const document: any;

const KEY = randomBytes(32);
const HOUR = 60 * 60 * 1000;
const SCRIPT = 'Every word of this script is read aloud and paid for. '.repeat(3).trim();

let idp: TestIdp;
let server: Server;
let base: string;
let browser: Browser;
let desk: MemoryDesk;
let client: { client_id: string; client_secret: string };
const logLines: string[] = [];

function card() {
  return consentCard({
    tool: 'create_talking_video',
    body: { avatar_id: 'av_marcus', voice_script: SCRIPT, resolution: '1080p' },
    estimate: estimate(300, 'per-minute price × 1 minute', { bounded: true }),
    summary: 'talking video of av_marcus',
  });
}

const lead = () => ({ id: oidcOwner(idp.issuer, 'lead'), name: 'The lead' });
const requester = () => ({ id: oidcOwner(idp.issuer, 'requester'), name: 'Requester' });

/** A pending approval the lead may decide, requested by `requester`, and its link. */
function newApproval(id: string, linkExpiresAt = Date.now() + HOUR): string {
  desk.add(id, { card: card(), requester: requester(), approvers: [lead()], expiresAt: Date.now() + HOUR });
  return approvalLink(base, id, linkExpiresAt, KEY);
}

/** A fresh browser profile signed in (at the provider) as `user` once it follows a link. */
async function as(user: string): Promise<BrowserContext> {
  idp.nextUser = user;
  return browser.newContext();
}

/** Sign-ins started at the provider's authorization endpoint. */
const authRequests = () => idp.requests.filter((r) => r.method === 'GET' && r.path === '/auth').length;

beforeAll(async () => {
  idp = await startIdp({ resources: [], scopes: [] });
  desk = new MemoryDesk();
  // Two instances of the route behind one address, taking requests in turn (a fleet behind a load balancer):
  // a sign-in starts on one and comes back on the other, so nothing may be kept in one instance's memory.
  const instances: ReturnType<typeof approvalPageRoute>[] = [];
  let turn = 0;
  server = createServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const route = instances[turn++ % Math.max(1, instances.length)];
    if (route && (await route(req, res, path))) return;
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Our confidential client at the provider, registered as an operator would (here by dynamic registration).
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
  client = (await reg.json()) as typeof client;
  expect(reg.status, JSON.stringify(client)).toBe(201);
  for (let i = 0; i < 2; i++) {
    instances.push(
      approvalPageRoute({
        desk,
        key: async () => KEY,
        publicUrl: base,
        oidc: { issuer: idp.issuer, clientId: client.client_id, clientSecret: client.client_secret },
        log: createLogger('debug', (line) => logLines.push(line)),
      }),
    );
  }
  browser = await chromium.launch({
    executablePath: findChromium(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-sync'],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await idp?.close();
});

describe('the approval page in chromium with a real OpenID provider', () => {
  it('the lead signs in, sees the whole card and approves: exactly one decision, by oidc:<hash of lead>', async () => {
    const link = newApproval('apr_lead');
    const ctx = await as('lead');
    const page = await ctx.newPage();
    const before = authRequests();
    const shown = await page.goto(link);
    expect(shown?.status()).toBe(200);
    expect(authRequests()).toBe(before + 1);
    expect(new URL(page.url()).pathname.startsWith(APPROVE_PREFIX)).toBe(true);
    // The card: tool, summary, price with its bound, every field in full; who asked, who may approve, until when.
    const text = (await page.textContent('body')) ?? '';
    expect(text).toContain('create_talking_video: talking video of av_marcus');
    expect(await page.textContent('#price')).toContain('at most 300 credits');
    expect(await page.textContent('#price')).toContain('proven from published prices');
    for (const v of ['av_marcus', SCRIPT, '1080p']) expect(text).toContain(v);
    expect(await page.textContent('#requester')).toContain(requester().id);
    expect(await page.textContent('#approvers')).toContain(lead().id);
    expect(await page.textContent('#signed-in')).toContain(lead().id);
    expect(await page.textContent('#expires')).toMatch(/UTC$/);
    // No secret in the page: the client secret, the code or a token never reach it.
    const html = await page.content();
    expect(html).not.toContain(client.client_secret);
    expect(html).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
    await page.click('#approve');
    await page.waitForSelector('#message');
    expect(await page.textContent('#message')).toMatch(/^Approved\./);
    expect(desk.decisions).toEqual([
      { approvalId: 'apr_lead', approver: oidcOwner(idp.issuer, 'lead'), carrier: 'page', decision: 'approve' },
    ]);
    expect(desk.calls).toHaveLength(1);

    // Replays: the link again (already decided, before any sign-in), and the same form posted again.
    const again = await page.goto(link);
    expect(again?.status()).toBe(409);
    expect(await page.textContent('#message')).toContain('already decided (approved)');
    await ctx.close();
    expect(desk.calls).toHaveLength(1);
    expect(desk.decisions).toHaveLength(1);
  });

  it('a second POST of a still-valid form is refused without a second call to the desk', async () => {
    const link = newApproval('apr_twice');
    const ctx = await as('lead');
    const page = await ctx.newPage();
    await page.goto(link);
    const token = await page.getAttribute('input[name=form_token]', 'value');
    const calls = desk.calls.length;
    // A copy of the session cookie as it was before the decision (another tab, a resent request).
    const kept = (await ctx.cookies()).find((c) => c.name === SESSION_COOKIE)?.value;
    expect(kept).toBeDefined();
    const first = await ctx.request.post(link, { form: { form_token: token!, decision: 'decline' } });
    expect(first.status()).toBe(200);
    // The decision ended the sign-in: the browser holds no session any more.
    expect((await ctx.cookies()).find((c) => c.name === SESSION_COOKIE)).toBeUndefined();
    const second = (
      await fetch(link, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${SESSION_COOKIE}=${kept}` },
        body: new URLSearchParams({ form_token: token!, decision: 'approve' }),
      })
    ).status;
    expect(second).toBe(409);
    expect(desk.calls.length - calls).toBe(1);
    expect(desk.decisions.filter((d) => d.approvalId === 'apr_twice')).toEqual([
      { approvalId: 'apr_twice', approver: lead().id, carrier: 'page', decision: 'decline' },
    ]);
    await ctx.close();
  });

  it('the requester signs in: sees the card, no buttons; a forged POST is refused by the desk, nothing recorded', async () => {
    const link = newApproval('apr_requester');
    const ctx = await as('requester');
    const page = await ctx.newPage();
    expect((await page.goto(link))?.status()).toBe(200);
    expect(await page.textContent('#message')).toContain('You asked for this call');
    expect(await page.$('#approve')).toBeNull();
    // With the page's own key the test mints the form token a session of theirs would need: the desk still refuses.
    const raw = (await ctx.cookies()).find((c) => c.name === SESSION_COOKIE)?.value;
    const session = openSession(KEY, raw, 'apr_requester', Date.now());
    expect(session?.approver).toBe(requester().id);
    const forged = await ctx.request.post(link, {
      form: { form_token: formToken(KEY, session!), decision: 'approve' },
    });
    expect(forged.status()).toBe(403);
    expect(await forged.text()).toContain('the requester cannot approve their own call');
    expect(desk.decisions.filter((d) => d.approvalId === 'apr_requester')).toEqual([]);
    await ctx.close();
  });

  it('a third person (not listed) is refused and sees nothing of the request', async () => {
    const link = newApproval('apr_third');
    const calls = desk.calls.length;
    const ctx = await as('mallory');
    const page = await ctx.newPage();
    expect((await page.goto(link))?.status()).toBe(403);
    expect(await page.textContent('#message')).toContain('not on the approver list');
    const text = (await page.textContent('body')) ?? '';
    expect(text).not.toContain('av_marcus');
    expect(await page.$('#approve')).toBeNull();
    expect(desk.calls.length).toBe(calls);
    expect(desk.decisions.filter((d) => d.approvalId === 'apr_third')).toEqual([]);
    await ctx.close();
  });

  it('an expired or altered link is refused before any sign-in', async () => {
    const expired = newApproval('apr_expired', Date.now() - 1000);
    const ctx = await as('lead');
    const page = await ctx.newPage();
    const before = authRequests();
    expect((await page.goto(expired))?.status()).toBe(410);
    expect(await page.textContent('#message')).toContain('has expired');
    const stretched = expired.replace(
      /(\/approve\/apr_expired\.)(\d+)\./,
      (_m, head: string, exp: string) => `${head}${Number(exp) + 2 * HOUR}.`,
    );
    expect((await page.goto(stretched))?.status()).toBe(404);
    expect(authRequests()).toBe(before);
    expect(desk.decisions.filter((d) => d.approvalId === 'apr_expired')).toEqual([]);
    await ctx.close();
  });

  it("a provider's answer opened in another browser (login CSRF) or with an altered code signs no one in", async () => {
    const link = newApproval('apr_csrf');
    const calls = desk.calls.length;
    // The lead's browser starts a sign-in; the provider's answer is held back before it reaches us (the hops are
    // followed one by one with the browser's own cookie jar, stopping at the redirect to /approve/callback).
    const victim = await as('lead');
    let answer: string | undefined;
    let next = link;
    for (let hop = 0; hop < 10 && !answer; hop++) {
      const r = await victim.request.get(next, { maxRedirects: 0 });
      const location = r.headers().location;
      expect(location, `hop ${hop} answered ${r.status()}`).toBeDefined();
      const to = new URL(location!, next);
      if (to.pathname === '/approve/callback') answer = to.href;
      next = to.href;
    }
    expect(answer).toBeDefined();
    // Another browser (no flow cookie of this sign-in) presents it: not matched, no session.
    const other = await browser.newContext();
    const page = await other.newPage();
    expect((await page.goto(answer!))?.status()).toBe(400);
    expect(await page.textContent('#message')).toContain('could not be matched');
    expect((await other.cookies()).find((c) => c.name === SESSION_COOKIE)).toBeUndefined();
    // The right browser with an altered code: the provider refuses the exchange; said without the code.
    const altered = new URL(answer!);
    altered.searchParams.set('code', `${altered.searchParams.get('code')}x`);
    const vpage = await victim.newPage();
    expect((await vpage.goto(altered.href))?.status()).toBe(400);
    const message = (await vpage.textContent('#message')) ?? '';
    expect(message).toContain('token endpoint refused the sign-in');
    expect(message).not.toContain(altered.searchParams.get('code')!);
    expect((await victim.cookies()).find((c) => c.name === SESSION_COOKIE)).toBeUndefined();
    expect(desk.calls.length).toBe(calls);
    await other.close();
    await victim.close();
  });

  it('no code, token or client secret was logged', () => {
    const all = logLines.join('\n');
    expect(all).toContain('approval page sign-in');
    expect(all).not.toContain(client.client_secret);
    expect(all).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
    expect(all).not.toMatch(/code=/);
  });
});
