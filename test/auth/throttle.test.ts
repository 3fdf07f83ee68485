/**
 * Issue 19 item 3: nobody can make us hammer the identity provider. The provider is the real one (./idp.ts),
 * counting every request it receives; the server's clock is moved (`advance`) instead of sleeping.
 * - failed authentications are throttled per address BEFORE verification (429 + Retry-After, no provider request);
 * - verified tokens are remembered until `exp`, refused ones for seconds;
 * - while the provider is down, discovery is fetched once per window and logged once per burst;
 * - the audience is our resource string exactly, not whatever a URL parser maps onto it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_FAILURES_PER_MIN } from '../../src/auth/auth-throttle.js';
import { OUTAGE_WINDOW_MS } from '../../src/auth/outage-memo.js';
import { NEGATIVE_TTL_MS } from '../../src/auth/verify-cache.js';
import { type OAuthFixture, startOAuthFixture } from './fixture.js';

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

async function post(f: OAuthFixture, token: string) {
  const res = await fetch(f.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: INIT,
  });
  await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after') };
}

const count = (f: OAuthFixture, path: string) => f.idp.requests.filter((r) => r.path === path).length;
/** One minute and a second: past the throttle's window. */
const NEXT_MINUTE = 61_000;

describe('opaque tokens: introspection is cached and failed authentications are throttled first', () => {
  let f: OAuthFixture;
  beforeAll(async () => {
    f = await startOAuthFixture({ opaque: true });
  });
  afterAll(() => f?.close());
  const introspections = () => count(f, '/token/introspection');

  it('a verified token is introspected once, however often it is used', async () => {
    const token = await f.idp.clientCredentialsToken(f.url, 'genplat:read genplat:spend');
    const before = introspections();
    for (let i = 0; i < 5; i++) expect((await post(f, token)).status).toBe(200);
    expect(introspections() - before).toBe(1);
  });

  it('a refused token is introspected once per negative window', async () => {
    f.advance(NEXT_MINUTE);
    const before = introspections();
    for (let i = 0; i < 3; i++) expect((await post(f, 'opaque-token-nobody-issued-aaaaaaaaaaaa')).status).toBe(401);
    expect(introspections() - before).toBe(1);
    f.advance(NEGATIVE_TTL_MS + 1);
    expect((await post(f, 'opaque-token-nobody-issued-aaaaaaaaaaaa')).status).toBe(401);
    expect(introspections() - before).toBe(2);
  });

  it('40 made-up tokens from one address cost the provider at most the allowance; known tokens still pass', async () => {
    const good = await f.idp.clientCredentialsToken(f.url, 'genplat:read');
    f.advance(NEXT_MINUTE);
    // Verified inside the flood's minute, so its next check (VERIFIED_TTL_MS) is not due during the flood.
    expect((await post(f, good)).status).toBe(200);
    const before = introspections();
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 40; i++) {
      const r = await post(f, `made-up-opaque-token-${i}-0123456789abcdef`);
      statuses.push(r.status);
      if (r.status === 429) retryAfter ??= r.retryAfter;
    }
    const asked = introspections() - before;
    console.error(`40 made-up tokens → ${asked} introspection requests (allowance ${AUTH_FAILURES_PER_MIN})`);
    expect(asked).toBeLessThanOrEqual(AUTH_FAILURES_PER_MIN);
    expect(statuses.filter((s) => s === 401)).toHaveLength(AUTH_FAILURES_PER_MIN);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40 - AUTH_FAILURES_PER_MIN);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    // Throttled address: a token verified earlier passes without a provider request; a new one waits.
    expect((await post(f, good)).status).toBe(200);
    const fresh = await f.idp.clientCredentialsToken(f.url, 'genplat:read');
    expect((await post(f, fresh)).status).toBe(429);
    expect(introspections() - before).toBe(asked);
    // The next minute the address may try again.
    f.advance(NEXT_MINUTE);
    expect((await post(f, fresh)).status).toBe(200);
  });
});

describe('JWTs while the provider is down', () => {
  let f: OAuthFixture;
  const lines: string[] = [];
  beforeAll(async () => {
    f = await startOAuthFixture({ onLog: (l) => lines.push(l) });
  });
  afterAll(() => f?.close());
  afterEach(() => {
    f.idp.down = false;
  });

  it('discovery is fetched once per outage window, and logged once per burst', async () => {
    f.idp.down = true;
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await post(f, `eyJhbGciOiJSUzI1NiJ9.e30.c2ln${i}`)).status);
    // Our outage, never a 401 that would restart every host's sign-in (and not counted by the throttle).
    expect(new Set(statuses)).toEqual(new Set([500]));
    console.error(`20 JWTs, provider down → ${f.idp.requests.length} provider requests`);
    expect(f.idp.requests).toHaveLength(1);
    expect(lines.filter((l) => l.includes('oauth token check failed'))).toHaveLength(1);
    f.advance(OUTAGE_WINDOW_MS + 1);
    for (let i = 0; i < 5; i++) await post(f, `eyJhbGciOiJSUzI1NiJ9.e30.c2ln${i}`);
    expect(f.idp.requests).toHaveLength(2);
    // Back up: the next window verifies real tokens again.
    f.idp.down = false;
    f.advance(OUTAGE_WINDOW_MS + 1);
    const token = await f.idp.clientCredentialsToken(f.url, 'genplat:read');
    expect((await post(f, token)).status).toBe(200);
  });
});

describe('the audience is our resource string exactly', () => {
  let f: OAuthFixture;
  const spellings = (url: string) => {
    const port = new URL(url).port;
    return [`http://0x7f.0.0.1:${port}/mcp`, `http://127.0.0.1:${port}/x/%2e%2e/mcp`, `http://127.0.0.1:${port}/mcp/`];
  };
  beforeAll(async () => {
    f = await startOAuthFixture({ aliases: spellings });
  });
  afterAll(() => f?.close());

  it('refuses real tokens issued for other spellings of our URL; accepts ours', async () => {
    for (const alias of spellings(f.url)) {
      const token = await f.idp.clientCredentialsToken(alias, 'genplat:read');
      expect((await post(f, token)).status, alias).toBe(401);
    }
    expect((await post(f, await f.idp.clientCredentialsToken(f.url, 'genplat:read'))).status).toBe(200);
  });
});
