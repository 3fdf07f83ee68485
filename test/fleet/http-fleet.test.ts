/**
 * Issue 11, "a fleet behind any load balancer": three HTTP instances on one PostgreSQL behind a round-robin
 * proxy (test/helpers/http-fleet.ts), real SDK clients of the run's era through the proxy. Any instance
 * answers any request: quote, confirm and wait each on another instance; 30 identical confirmed calls spread
 * over all three send one POST; an instance closed in the middle of a wait changes nothing for the client; a
 * 2026-07-28 `subscriptions/listen` stream on one instance hears of a job another instance's poller saw end.
 * A real PostgreSQL (test/store/pg-helper.ts), a database per run, dropped after.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type HttpFleet, startHttpFleet } from '../helpers/http-fleet.js';
import { connectClient, sc, type TestClient, TOKEN_A } from '../http/helpers.js';
import { createTestDatabase, dropTestDatabases } from '../store/pg-helper.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
const TOOL = 'create_talking_video';

let fleet: HttpFleet | undefined;
const clients: TestClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  await fleet?.close();
  fleet = undefined;
});
afterAll(dropTestDatabases);

beforeAll(async () => {
  // Fails loudly (never skips) without a PostgreSQL: see test/store/pg-helper.ts.
  await dropTestDatabases();
});

async function start(confirm: 'always' | 'never' = 'always'): Promise<HttpFleet> {
  fleet = await startHttpFleet({ size: 3, databaseUrl: await createTestDatabase(), confirm: { mode: confirm } });
  return fleet;
}

async function client(f: HttpFleet): Promise<TestClient> {
  const c = await connectClient(f.proxy.url, TOKEN_A);
  clients.push(c);
  return c;
}

/** Runs `fn` with every request sent to instance `i`, and checks that they were answered there. */
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

/** Waits through the proxy until the job is terminal; a call cut by a dying instance is simply made again. */
async function waitDone(c: TestClient, handle: string): Promise<{ status: string; outputs?: unknown[] }> {
  for (let i = 0; i < 40; i++) {
    let r: CallToolResult;
    try {
      r = await c.call('wait_for_jobs', { handles: [handle], max_wait_s: 10 });
    } catch {
      continue;
    }
    const job = (sc(r).jobs as { status: string; outputs?: unknown[] }[])[0]!;
    if (job.status === 'completed' || job.status === 'failed') return job;
  }
  throw new Error(`job ${handle} did not finish`);
}

describe('three HTTP instances on one PostgreSQL behind a round-robin proxy', () => {
  it('quote on one instance, confirm on another, wait on a third', async () => {
    const f = await start('always');
    const c = await client(f);
    const args = { avatar_id: 'av_ava', voice_script: 'Across the fleet.' };
    const quote = sc(await on(f, 0, () => c.call(TOOL, args)));
    expect(quote.status).toBe('confirmation_required');
    expect(f.sim.log.count(POSTS)).toBe(0);
    const token = quote.confirmation_token as string;
    const created = sc(await on(f, 1, () => c.call(TOOL, { ...args, confirmation_token: token })));
    expect(created.status).toBe('submitted');
    const job = await on(f, 2, () => waitDone(c, created.handle!));
    expect(job.status).toBe('completed');
    expect(job.outputs?.length).toBeGreaterThan(0);
    expect(f.sim.log.count(POSTS)).toBe(1);
    // The token was consumed in the store: redeeming it again on the first instance sends nothing.
    const again = sc(await on(f, 0, () => c.call(TOOL, { ...args, confirmation_token: token })));
    expect(again.status).not.toBe('submitted');
    expect(f.sim.log.count(POSTS)).toBe(1);
  }, 90_000);

  it('30 identical confirmed calls spread over the instances: exactly 1 POST', async () => {
    const f = await start('always');
    const c = await client(f);
    f.sim.jobs.scriptNext({ durationMs: 600_000 }, 30);
    const args = { avatar_id: 'av_marcus', voice_script: 'Thirty calls, one job.', allow_duplicate: true };
    const token = sc(await c.call(TOOL, args)).confirmation_token as string;
    expect(token).toEqual(expect.any(String));
    const before = f.proxy.served.length;
    const results = await Promise.all(
      Array.from({ length: 30 }, () => c.call(TOOL, { ...args, confirmation_token: token })),
    );
    expect(f.sim.log.count(POSTS)).toBe(1);
    expect(results.filter((r) => sc(r).status === 'submitted')).toHaveLength(1);
    // Round robin: all three instances answered some of them.
    expect(new Set(f.proxy.served.slice(before))).toEqual(new Set([0, 1, 2]));
    f.sim.jobs.clearScripts();
  }, 90_000);

  it('an instance closed in the middle of a wait changes nothing: the job completes and is counted once', async () => {
    const f = await start('never');
    const c = await client(f);
    f.sim.jobs.scriptNext({ durationMs: 600_000 });
    const created = sc(await c.call(TOOL, { avatar_id: 'av_ava', voice_script: 'Survives a dying instance.' }));
    expect(created.status).toBe('submitted');
    const id = (created.remote as { id: string }).id;
    f.proxy.pin = 2;
    const doomed = c.call('wait_for_jobs', { handles: [created.handle], max_wait_s: 50 }).then(
      () => 'answered',
      () => 'cut',
    );
    await vi.waitFor(() => expect(f.instances[2]?.http.inFlight()).toBe(1), { timeout: 10_000, interval: 10 });
    await f.kill(2);
    expect(await doomed).toBe('cut');
    // The job ends while the client retries through the proxy, which now reaches only the live instances.
    f.proxy.pin = undefined;
    const job = f.sim.jobs.all().find((j) => j.id === id)!;
    job.finishAt = Date.now();
    const done = await waitDone(c, created.handle!);
    expect(done.status).toBe('completed');
    expect(f.sim.log.count(POSTS)).toBe(1);
    const listed = (sc(await c.call('list_jobs')).jobs as { handle: string; status: string }[]).filter(
      (j) => j.handle === created.handle,
    );
    expect(listed).toHaveLength(1);
    expect(listed[0]!.status).toBe('completed');
  }, 90_000);

  it('a listen stream on one instance hears of a job another instance saw finish (2026-07-28)', async () => {
    const f = await start('never');
    const c = await connectClient(f.proxy.url, TOKEN_A, { era: 'modern' });
    clients.push(c);
    f.sim.jobs.scriptNext({ durationMs: 600_000 });
    const created = sc(await c.call(TOOL, { avatar_id: 'av_ava', voice_script: 'Heard across the fleet.' }));
    const uri = `genplat://jobs/${created.handle}`;
    const heard: string[] = [];
    c.client.setNotificationHandler('notifications/resources/updated', async (n) => {
      heard.push(n.params.uri);
    });
    const sub = await on(f, 0, () => c.client.listen({ resourceSubscriptions: [uri] }));
    expect(sub.honoredFilter.resourceSubscriptions).toEqual([uri]);
    // Instance 1 follows the job; only its poller sees it end. Instance 0 reads nothing.
    const job = f.sim.jobs.all().find((j) => j.id === (created.remote as { id: string }).id)!;
    job.finishAt = Date.now();
    expect((await on(f, 1, () => waitDone(c, created.handle!))).status).toBe('completed');
    await vi.waitFor(() => expect(heard).toContain(uri), { timeout: 10_000, interval: 20 });
    await sub.close();
  }, 90_000);
});
