/**
 * HTTP mode, request gate (stateless: every request is checked on its own): bearer token on every method and
 * both eras, Host and Origin checks, the caller named by each request's token, and no start without a token. Nothing unauthenticated may reach the platform (the simulator log stays empty).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { ConfigurationError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { startHttpRuntime } from '../../src/transports/http-main.js';
import {
  discoverBody,
  eraOptions,
  FIRST_REQUESTS,
  type HttpFixture,
  initializeBody,
  MODERN_HEADERS,
  startHttpFixture,
  TOKEN_A,
  TOKEN_B,
  testEra,
} from './helpers.js';

let f: HttpFixture;
beforeAll(async () => {
  f = await startHttpFixture({ http: { allowedOrigins: ['https://chat.example.com'] } });
});
afterAll(() => f.close());
beforeEach(() => f.sim.log.clear());

const toolCall = JSON.stringify({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'list_avatars', arguments: {} },
});

describe('bearer token', () => {
  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { authorization: 'Bearer not-the-right-token-at-all' }],
    ['a token prefix', { authorization: `Bearer ${TOKEN_A.slice(0, -1)}` }],
    ['another scheme', { authorization: `Basic ${TOKEN_A}` }],
  ])('answers 401 to %s and runs nothing', async (_name, headers) => {
    const init = await f.raw({ headers, body: initializeBody });
    expect(init.status).toBe(401);
    expect(init.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    expect(await f.raw({ headers, body: toolCall })).toHaveProperty('status', 401);
    expect(await f.raw({ headers: { ...headers, ...MODERN_HEADERS }, body: discoverBody })).toHaveProperty(
      'status',
      401,
    );
    expect(f.sim.log.entries()).toHaveLength(0);
    expect(f.rt.http.inFlight()).toBe(0);
  });

  it('checks the token on GET and DELETE too, before the SDK answers them', async () => {
    for (const method of ['GET', 'DELETE']) {
      expect((await f.raw({ method, headers: { 'mcp-session-id': 'any' } })).status, method).toBe(401);
      // With a token they reach the SDK, which has no session to stream or end (stateless): 405.
      expect((await f.raw({ method, headers: { authorization: `Bearer ${TOKEN_A}` } })).status, method).toBe(405);
    }
  });

  it('the SDK client without a token cannot connect', async () => {
    const { Client } = await import('@modelcontextprotocol/client');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client({ name: 'anon', version: '0' }, eraOptions(testEra()));
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(f.url)))).rejects.toThrow();
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it('accepts each configured token; the caller is the token of each request, never a session', async () => {
    const a = await f.connect(TOKEN_A);
    const b = await f.connect(TOKEN_B);
    expect((await a.call('list_avatars')).isError).toBeFalsy();
    expect((await b.call('list_avatars')).isError).toBeFalsy();
    // A session id (another caller's, or made up) decides nothing: B stays B, with B's empty job list.
    const r = await f.raw({
      headers: { authorization: `Bearer ${TOKEN_B}`, 'mcp-session-id': 'session-of-a' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'list_jobs', arguments: {} },
      }),
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatch(/"jobs":\[\]/);
    await a.close();
    await b.close();
  });
});

describe('Host and Origin', () => {
  const auth = { authorization: `Bearer ${TOKEN_A}` };

  it('refuses a foreign Host with 403 (DNS rebinding), on both eras', async () => {
    for (const first of FIRST_REQUESTS) {
      const r = await f.raw({ headers: { ...auth, ...first.headers, host: 'evil.example.com' }, body: first.body });
      expect(r.status, first.era).toBe(403);
    }
    expect(f.rt.http.inFlight()).toBe(0);
  });

  it('refuses a foreign Origin with 403, before checking the token', async () => {
    for (const headers of [{ ...auth, origin: 'https://evil.example.com' }, { origin: 'https://evil.example.com' }]) {
      for (const first of FIRST_REQUESTS) {
        const r = await f.raw({ headers: { ...headers, ...first.headers }, body: first.body });
        expect(r.status, first.era).toBe(403);
      }
    }
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it('accepts no Origin, an allowed Origin, and its own origin', async () => {
    const own = new URL(f.url).origin;
    for (const extra of [{} as Record<string, string>, { origin: 'https://chat.example.com' }, { origin: own }]) {
      for (const first of FIRST_REQUESTS) {
        const r = await f.raw({ headers: { ...auth, ...first.headers, ...extra }, body: first.body });
        expect(r.status, `${first.era} ${JSON.stringify(extra)}`).toBe(200);
        expect(r.headers['mcp-session-id']).toBeUndefined();
      }
    }
  });
});

describe('start-up', () => {
  it('refuses to start without a token', async () => {
    const config: Config = loadConfig(parseCli(['--http', '--sandbox', '--port', '0']), {});
    expect(config.http.tokens).toEqual([]);
    await expect(
      startHttpRuntime(
        config,
        createLogger('error', () => {}),
      ),
    ).rejects.toBeInstanceOf(ConfigurationError);
  });

  it('config: several comma-separated tokens, each at least 16 characters', () => {
    const c = loadConfig(parseCli(['--http', '--sandbox']), { GENPLAT_HTTP_TOKEN: ` ${TOKEN_A} , ${TOKEN_B} ` });
    expect(c.http.tokens).toEqual([TOKEN_A, TOKEN_B]);
    expect(() => loadConfig(parseCli(['--sandbox']), { GENPLAT_HTTP_TOKEN: `${TOKEN_A},short` })).toThrow(
      /GENPLAT_HTTP_TOKEN must be at least 16 characters/,
    );
    try {
      loadConfig(parseCli(['--sandbox']), { GENPLAT_HTTP_TOKEN: `${TOKEN_A},short-secret` });
    } catch (err) {
      expect(String((err as Error).message)).not.toContain('short-secret');
    }
    expect(() =>
      loadConfig(parseCli(['--sandbox']), { GENPLAT_HTTP_ALLOWED_ORIGINS: 'https://chat.example.com/app' }),
    ).toThrow(/GENPLAT_HTTP_ALLOWED_ORIGINS/);
  });
});
