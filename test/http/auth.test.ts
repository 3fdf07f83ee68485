/**
 * HTTP mode, request gate: bearer token on every method, Host and Origin checks, session bound to its token,
 * and no start without a token. Nothing unauthenticated may reach the platform (the simulator log stays empty).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { ConfigurationError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { startHttpRuntime } from '../../src/transports/http-main.js';
import { type HttpFixture, initializeBody, startHttpFixture, TOKEN_A, TOKEN_B } from './helpers.js';

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
    const sessionsBefore = f.rt.http.sessionCount();
    const init = await f.raw({ headers, body: initializeBody });
    expect(init.status).toBe(401);
    expect(init.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    expect(await f.raw({ headers, body: toolCall })).toHaveProperty('status', 401);
    expect(f.sim.log.entries()).toHaveLength(0);
    expect(f.rt.http.sessionCount()).toBe(sessionsBefore);
  });

  it('checks the token on GET and DELETE of an existing session too', async () => {
    const c = await f.connect(TOKEN_A);
    const sid = c.transport.sessionId!;
    expect(sid).toBeTruthy();
    for (const method of ['GET', 'DELETE']) {
      const r = await f.raw({ method, headers: { 'mcp-session-id': sid } });
      expect(r.status, method).toBe(401);
    }
    // Still open: the unauthenticated DELETE did nothing.
    expect((await c.call('list_avatars')).isError).toBeFalsy();
    await c.close();
  });

  it('the SDK client without a token cannot connect', async () => {
    const { Client } = await import('@modelcontextprotocol/client');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client({ name: 'anon', version: '0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(f.url)))).rejects.toThrow();
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it('accepts each configured token, and a session only with the token that opened it', async () => {
    const a = await f.connect(TOKEN_A);
    const b = await f.connect(TOKEN_B);
    expect((await b.call('list_avatars')).isError).toBeFalsy();
    // B presenting A's session id is answered like an unknown session.
    const hijack = await f.raw({
      headers: { authorization: `Bearer ${TOKEN_B}`, 'mcp-session-id': a.transport.sessionId! },
      body: toolCall,
    });
    expect(hijack.status).toBe(404);
    const del = await f.raw({
      method: 'DELETE',
      headers: { authorization: `Bearer ${TOKEN_B}`, 'mcp-session-id': a.transport.sessionId! },
    });
    expect(del.status).toBe(404);
    expect((await a.call('list_avatars')).isError).toBeFalsy();
    await a.close();
    await b.close();
  });

  it('a DELETE from the owner ends the session', async () => {
    const a = await f.connect(TOKEN_A);
    const before = f.rt.http.sessionCount();
    await a.transport.terminateSession();
    expect(f.rt.http.sessionCount()).toBe(before - 1);
    const r = await f.raw({
      headers: { authorization: `Bearer ${TOKEN_A}`, 'mcp-session-id': a.transport.sessionId ?? 'gone' },
      body: toolCall,
    });
    expect(r.status).toBe(404);
  });
});

describe('Host and Origin', () => {
  const auth = { authorization: `Bearer ${TOKEN_A}` };

  it('refuses a foreign Host with 403 (DNS rebinding)', async () => {
    const sessionsBefore = f.rt.http.sessionCount();
    const r = await f.raw({ headers: { ...auth, host: 'evil.example.com' }, body: initializeBody });
    expect(r.status).toBe(403);
    expect(f.rt.http.sessionCount()).toBe(sessionsBefore);
  });

  it('refuses a foreign Origin with 403, before checking the token', async () => {
    const sessionsBefore = f.rt.http.sessionCount();
    for (const headers of [{ ...auth, origin: 'https://evil.example.com' }, { origin: 'https://evil.example.com' }]) {
      const r = await f.raw({ headers, body: initializeBody });
      expect(r.status).toBe(403);
    }
    expect(f.rt.http.sessionCount()).toBe(sessionsBefore);
  });

  it('accepts no Origin, an allowed Origin, and its own origin', async () => {
    const own = new URL(f.url).origin;
    for (const extra of [{} as Record<string, string>, { origin: 'https://chat.example.com' }, { origin: own }]) {
      const r = await f.raw({ headers: { ...auth, ...extra }, body: initializeBody });
      expect(r.status, JSON.stringify(extra)).toBe(200);
      const sid = String(r.headers['mcp-session-id']);
      await f.raw({ method: 'DELETE', headers: { ...auth, 'mcp-session-id': sid } });
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
