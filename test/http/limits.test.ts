/**
 * HTTP mode limits, with small injected values and a movable clock (no sleeping, no timed assertions):
 * session cap (total and per token) → 503, idle expiry → 404, per-token rate limit → 429 + Retry-After, body limit → 413.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type HttpFixture, initializeBody, startHttpFixture, TOKEN_A, TOKEN_B } from './helpers.js';

let f: HttpFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const listTools = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} });

describe('HTTP limits', () => {
  it('refuses a session beyond the cap with 503, and admits one again after a close', async () => {
    f = await startHttpFixture({ http: { maxSessions: 2 } });
    const a = await f.connect(TOKEN_A);
    await f.connect(TOKEN_B);
    const third = await f.raw({ headers: auth(TOKEN_A), body: initializeBody });
    expect(third.status).toBe(503);
    expect(third.headers['retry-after']).toBeDefined();
    expect(f.rt.http.sessionCount()).toBe(2);
    await a.transport.terminateSession();
    const again = await f.raw({ headers: auth(TOKEN_A), body: initializeBody });
    expect(again.status).toBe(200);
  });

  it("caps sessions per token: one caller's share full, the other still connects; the total cap still holds", async () => {
    // 5 in total, 2 tokens: a share of 2 each (rounded down, so both shares always fit).
    f = await startHttpFixture({ http: { maxSessions: 5 } });
    const a1 = await f.connect(TOKEN_A);
    await f.connect(TOKEN_A);
    const a3 = await f.raw({ headers: auth(TOKEN_A), body: initializeBody });
    expect(a3.status).toBe(503);
    expect(a3.headers['retry-after']).toBeDefined();
    expect(a3.body).toMatch(/for this token \(limit 2\)/);
    // B connects although A asked for more than its share.
    await f.connect(TOKEN_B);
    await f.connect(TOKEN_B);
    expect((await f.raw({ headers: auth(TOKEN_B), body: initializeBody })).status).toBe(503);
    expect(f.rt.http.sessionCount()).toBe(4);
    // A closed session gives the slot back to its caller.
    await a1.transport.terminateSession();
    expect((await f.raw({ headers: auth(TOKEN_A), body: initializeBody })).status).toBe(200);
  });

  it('a per-token share above the total still stops at the total', async () => {
    f = await startHttpFixture({ http: { maxSessions: 3, maxSessionsPerCaller: 3 } });
    for (let i = 0; i < 3; i++) await f.connect(TOKEN_A);
    const b = await f.raw({ headers: auth(TOKEN_B), body: initializeBody });
    expect(b.status).toBe(503);
    expect(b.body).toMatch(/Too many open sessions \(limit 3\)/);
  });

  it('closes a session idle for longer than the limit', async () => {
    let clock = 1_000_000;
    f = await startHttpFixture({ http: { sessionIdleMs: 60_000 }, now: () => clock });
    const a = await f.connect(TOKEN_A);
    const sid = a.transport.sessionId!;
    clock += 59_000;
    // Still alive just under the limit; the request also counts as activity.
    expect((await f.raw({ headers: { ...auth(TOKEN_A), 'mcp-session-id': sid }, body: listTools })).status).toBe(200);
    clock += 61_000;
    const late = await f.raw({ headers: { ...auth(TOKEN_A), 'mcp-session-id': sid }, body: listTools });
    expect(late.status).toBe(404);
    expect(f.rt.http.sessionCount()).toBe(0);
  });

  it('limits requests per token per minute with 429 and Retry-After; other tokens are unaffected', async () => {
    let clock = 5_000_000;
    f = await startHttpFixture({ http: { rateLimitPerMin: 5 }, now: () => clock });
    const statuses: number[] = [];
    let retryAfter: string | string[] | undefined;
    for (let i = 0; i < 7; i++) {
      const r = await f.raw({ headers: auth(TOKEN_A), body: listTools });
      statuses.push(r.status);
      if (r.status === 429) retryAfter = r.headers['retry-after'];
    }
    // Allowed requests get 400 (no session): the limiter counts before the session is looked at.
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect((await f.raw({ headers: auth(TOKEN_B), body: listTools })).status).toBe(400);
    clock += 60_000;
    expect((await f.raw({ headers: auth(TOKEN_A), body: listTools })).status).toBe(400);
  });

  it('answers 413 to a body over 1 MiB, without opening a session', async () => {
    f = await startHttpFixture();
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'x'.repeat(1024 * 1024 + 10), version: '0' },
      },
    });
    const r = await f.raw({ headers: auth(TOKEN_A), body: big });
    expect(r.status).toBe(413);
    expect(f.rt.http.sessionCount()).toBe(0);
    // A normal request right after still works.
    expect((await f.raw({ headers: auth(TOKEN_A), body: initializeBody })).status).toBe(200);
  });

  it('answers 400 to a body that is not JSON', async () => {
    f = await startHttpFixture();
    const r = await f.raw({ headers: auth(TOKEN_A), body: '{not json' });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ error: { code: -32700 } });
  });
});
