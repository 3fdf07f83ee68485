/**
 * Issue 11, "webhooks end waits early" in a fleet: three HTTP instances on one PostgreSQL behind the round-robin
 * proxy (test/helpers/http-fleet.ts), webhooks on (`loopbackWebhooks`: each instance hands out callback URLs to
 * its own listener), and a poll interval of ten minutes, so within a test nothing but a hint can make an
 * instance look at a job again. The platform's callback lands on instance A (the one that sent the POST, so
 * the URL points at it directly); a wait_for_jobs in flight on instance B ends with the job completed. B only
 * learns of the callback through the store's pub/sub (PostgreSQL LISTEN/NOTIFY, `pubSubHints` wired by
 * `startHttpRuntime`): no other path exists between A and B.
 *
 * Proven by counters and order, never by timing: the wait's own limit (50 s) would answer `processing`; the
 * simulator's status-read counter shows B read the platform once (before the callback) and A once (the
 * callback's read), so B took the completion from the store after the hint. Real SDK clients of the run's era.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { billableExample } from '../helpers/examples.js';
import { type HttpFleet, startHttpFleet } from '../helpers/http-fleet.js';
import { connectClient, sc, type TestClient, TOKEN_A } from '../http/helpers.js';
import { createTestDatabase, dropTestDatabases } from '../store/pg-helper.js';

const TOOL = 'create_talking_video';
/** Ten minutes: no second read is ever due within a test, so only a hint can cause one. */
const NEVER_DUE_MS = 600_000;

let fleet: HttpFleet | undefined;
const clients: TestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  await fleet?.close();
  fleet = undefined;
});
beforeAll(dropTestDatabases);
afterAll(dropTestDatabases);

/** Runs `fn` with every request pinned to instance `i`, and checks they were all answered there. */
async function on<T>(f: HttpFleet, i: number, fn: () => Promise<T>): Promise<T> {
  const mark = f.proxy.served.length;
  f.proxy.pin = i;
  try {
    return await fn();
  } finally {
    f.proxy.pin = undefined;
    const served = f.proxy.served.slice(mark);
    expect(served.length).toBeGreaterThan(0);
    expect(served.every((s) => s === i)).toBe(true);
  }
}

describe('webhooks across instances (PostgreSQL LISTEN/NOTIFY)', () => {
  it('a callback received by instance A ends a wait in flight on instance B', async () => {
    fleet = await startHttpFleet({
      size: 3,
      databaseUrl: await createTestDatabase(),
      confirm: { mode: 'never' },
      pollIntervalMs: NEVER_DUE_MS,
      webhooks: true,
    });
    const f = fleet;
    const [a, b] = [f.instances[0]!, f.instances[1]!];
    // The hint channel really is the database's, not an in-process stand-in.
    expect(b.pubsub.description).toMatch(/PostgreSQL LISTEN\/NOTIFY/);
    const c = await connectClient(f.proxy.url, TOKEN_A);
    clients.push(c);

    // Created through A: A sends the POST, so the callback URL in it points at A's own listener.
    f.sim.jobs.scriptNext({ durationMs: NEVER_DUE_MS });
    const created = sc(await on(f, 0, () => c.call(TOOL, billableExample(TOOL).args(f.sim))));
    expect(created.status).toBe('submitted');
    expect(f.sim.jobs.all()).toHaveLength(1);
    const job = f.sim.jobs.all()[0]!;
    expect(job.webhookUrl?.startsWith(`http://127.0.0.1:${a.http.port}/hooks/`)).toBe(true);
    const reads = () =>
      f.sim.log.entries().filter((e) => e.method === 'GET' && e.path === '/video/status' && e.query.id === job.id)
        .length;

    // B reads the job once (processing) and, with a ten-minute interval, would not read it again in this test.
    expect(sc(await on(f, 1, () => c.call('get_job', { handle: created.handle }))).status).toBe('processing');
    expect(reads()).toBe(1);

    // A wait on B, in flight before the job ends.
    f.proxy.pin = 1;
    const waiting = c.call('wait_for_jobs', { handles: [created.handle], max_wait_s: 50 });
    await vi.waitFor(() => expect(b.http.inFlight()).toBe(1), { timeout: 10_000, interval: 10 });
    f.proxy.pin = undefined;
    expect(reads()).toBe(1);

    // The job ends now: the simulator settles it and POSTs the callback to A's URL (not through the proxy).
    job.finishAt = Date.now();
    expect(f.sim.jobs.state(job)).toBe('completed');

    const r: CallToolResult = await waiting;
    const jobs = sc(r).jobs as { status: string; outputs: unknown[] }[];
    expect(jobs[0]?.status).toBe('completed');
    expect(jobs[0]?.outputs.length).toBe(1);
    // Two platform reads in all: B's get_job and A's forced read after the callback. Woken by the hint, B's wait
    // re-read through the poller lease, which B's own get_job still holds for ten minutes (leases are not
    // re-entrant), so it served the store's record, which A had written before publishing the hint.
    expect(reads()).toBe(2);
  }, 90_000);
});
