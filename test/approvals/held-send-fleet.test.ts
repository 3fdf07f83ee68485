/**
 * Issue 28 item 5 on a fleet: two HTTP instances on one PostgreSQL. The requester's call is held on instance A;
 * the lead approves on instance B; the held request is sent exactly once (the simulator's request log is the
 * referee), whichever instance's sweep claims it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpFleet, startHttpFleet } from '../helpers/http-fleet.js';
import { connectClient, sc, type TestClient, text } from '../http/helpers.js';
import { createTestDatabase, dropTestDatabases } from '../store/pg-helper.js';

const TOKENS = { alice: 'alice-0123456789abcdef', lead: 'lead-0123456789abcdef' };
const SHOPPABLE = {
  category: 'gadgets',
  format: 'unboxing',
  image_urls: ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png'],
  context: 'desk setup, held on a fleet',
};

let fleet: HttpFleet;
let dir: string;
let alice: TestClient;
let lead: TestClient;
const posts = () => fleet.sim.log.entries().filter((e) => e.method === 'POST').length;

beforeAll(async () => {
  await dropTestDatabases();
  dir = await mkdtemp(join(tmpdir(), 'genplat-held-fleet-'));
  const policy = join(dir, 'approvals.json');
  await writeFile(policy, JSON.stringify({ rules: [{ when: { credits_at_least: 300 }, approvers: ['token:lead'] }] }));
  fleet = await startHttpFleet({
    size: 2,
    databaseUrl: await createTestDatabase(),
    confirm: { mode: 'never' },
    env: {
      GENPLAT_APPROVALS: policy,
      GENPLAT_HTTP_TOKEN: Object.entries(TOKENS)
        .map(([n, t]) => `${n}=${t}`)
        .join(','),
    },
  });
  alice = await connectClient(fleet.instances[0]!.http.url, TOKENS.alice);
  lead = await connectClient(fleet.instances[1]!.http.url, TOKENS.lead);
});

afterAll(async () => {
  await alice?.close().catch(() => {});
  await lead?.close().catch(() => {});
  await fleet?.close();
  await dropTestDatabases();
  await rm(dir, { recursive: true, force: true });
});

describe('a held call on a fleet', () => {
  it('held on instance A, approved on instance B: sent exactly once', async () => {
    const r = await alice.call('create_shoppable_video', SHOPPABLE);
    expect(sc(r).status, text(r)).toBe('approval_required');
    expect(posts()).toBe(0);
    const d = await lead.call('decide_approval', { approval: sc(r).handle, decision: 'approve' });
    expect(sc(d).state, text(d)).toBe('approved');
    const end = Date.now() + 30_000;
    while (posts() === 0 && Date.now() < end) await new Promise((res) => setTimeout(res, 25));
    expect(posts()).toBe(1);
    // Both instances keep sweeping; one more full sweep on each afterwards sends nothing more.
    for (const rt of fleet.instances) await rt!.sweep();
    expect(posts()).toBe(1);
  });
});
