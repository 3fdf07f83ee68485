/**
 * HTTP mode limits on the stateless server, with small injected values and a movable clock (no sleeping, no
 * timed assertions): requests in flight (total and per token) → 503 + Retry-After, per-token rate limit → 429 +
 * Retry-After, body limit → 413. Nothing is kept between requests: no session ids, GET/DELETE answer 405.
 * Requests are held in flight by wait_for_jobs calls on jobs the test finishes (never by sleeping).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type HttpFixture,
  initializeBody,
  sc,
  startHttpFixture,
  type TestClient,
  TOKEN_A,
  TOKEN_B,
} from './helpers.js';

let f: HttpFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const listTools = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} });

/**
 * Holds `n` requests of `c` in flight: each a wait_for_jobs on its own job that stays `processing` until the
 * test ends it. Resolves once the server is answering all of them.
 */
async function holdInFlight(fx: HttpFixture, c: TestClient, n: number) {
  fx.sim.jobs.scriptNext({ durationMs: 600_000 }, n);
  const ids: string[] = [];
  const handles: string[] = [];
  for (let i = 0; i < n; i++) {
    const env = sc(await c.call('create_talking_video', { avatar_id: 'av_ava', voice_script: `Held in flight ${i}.` }));
    expect(env.status).toBe('submitted');
    handles.push(env.handle!);
    ids.push((env.remote as { id: string }).id);
  }
  const before = fx.rt.http.inFlight();
  const calls = handles.map((h) => c.call('wait_for_jobs', { handles: [h], max_wait_s: 50 }).catch(() => undefined));
  await vi.waitFor(() => expect(fx.rt.http.inFlight()).toBe(before + n), { timeout: 10_000, interval: 10 });
  /** Ends job i now: its wait answers (through the poller), and its request leaves. */
  const finish = (i: number) => {
    const job = fx.sim.jobs.all().find((j) => j.id === ids[i]);
    if (job) job.finishAt = Date.now();
    return calls[i];
  };
  return {
    async release(i: number) {
      const now = fx.rt.http.inFlight();
      await finish(i);
      await vi.waitFor(() => expect(fx.rt.http.inFlight()).toBe(now - 1), { timeout: 10_000, interval: 10 });
    },
    releaseAll: () => Promise.all(ids.map((_, i) => finish(i))),
  };
}

describe('HTTP limits', () => {
  it("caps requests in flight per token: one caller's share full → 503, the other still served; a finished request frees the slot", async () => {
    // 5 in total, 2 tokens: a share of 2 each (rounded down, so both shares always fit).
    f = await startHttpFixture({ http: { maxInFlight: 5 }, confirm: { mode: 'never' } });
    const a = await f.connect(TOKEN_A);
    const held = await holdInFlight(f, a, 2);
    const a3 = await f.raw({ headers: auth(TOKEN_A), body: listTools });
    expect(a3.status).toBe(503);
    expect(a3.headers['retry-after']).toBeDefined();
    expect(a3.body).toMatch(/for this token \(limit 2\)/);
    // B is served although A asked for more than its share.
    expect((await f.raw({ headers: auth(TOKEN_B), body: listTools })).status).toBe(200);
    // A request that ends gives the slot back to its caller.
    await held.release(0);
    expect((await f.raw({ headers: auth(TOKEN_A), body: listTools })).status).toBe(200);
    await held.releaseAll();
  });

  it('a per-token share above the total still stops at the total', async () => {
    f = await startHttpFixture({ http: { maxInFlight: 3, maxInFlightPerCaller: 3 }, confirm: { mode: 'never' } });
    const a = await f.connect(TOKEN_A);
    const held = await holdInFlight(f, a, 3);
    const b = await f.raw({ headers: auth(TOKEN_B), body: listTools });
    expect(b.status).toBe(503);
    expect(b.headers['retry-after']).toBeDefined();
    expect(b.body).toMatch(/Too many requests in flight \(limit 3\)/);
    await held.releaseAll();
  });

  it('keeps nothing between requests: no session id, GET and DELETE answer 405, nothing left in flight', async () => {
    f = await startHttpFixture();
    const init = await f.raw({ headers: auth(TOKEN_A), body: initializeBody });
    expect(init.status).toBe(200);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    // A request without any handshake before it is answered: every request stands alone.
    expect((await f.raw({ headers: auth(TOKEN_A), body: listTools })).status).toBe(200);
    // A session id a 2025 client may still send (from another server, or made up) changes nothing.
    const stale = await f.raw({ headers: { ...auth(TOKEN_A), 'mcp-session-id': 'made-up-session' }, body: listTools });
    expect(stale.status).toBe(200);
    for (const method of ['GET', 'DELETE']) {
      expect((await f.raw({ method, headers: auth(TOKEN_A) })).status, method).toBe(405);
    }
    expect(f.rt.http.inFlight()).toBe(0);
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
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect((await f.raw({ headers: auth(TOKEN_B), body: listTools })).status).toBe(200);
    clock += 60_000;
    expect((await f.raw({ headers: auth(TOKEN_A), body: listTools })).status).toBe(200);
  });

  it('answers 413 to a body over 1 MiB, before any server is built', async () => {
    f = await startHttpFixture();
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_avatars', arguments: { x: 'x'.repeat(1024 * 1024 + 10) } },
    });
    const r = await f.raw({ headers: auth(TOKEN_A), body: big });
    expect(r.status).toBe(413);
    expect(f.sim.log.entries()).toHaveLength(0);
    expect(f.rt.http.inFlight()).toBe(0);
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
