/**
 * Campaigns on the 3-instance PostgreSQL fleet (issue 21): three built stdio servers on one database, one
 * simulator whose request log is the referee. A 24-variant campaign is 24 POSTs, and the same call replayed on
 * the other instances is 0 more; an instance killed (-9) after 1 of N items were sent leaves the rest to the
 * others, which send them by themselves: exactly N POSTs in all, none twice.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { ensureBuilt, type SpawnedServer, spawnServer } from '../helpers/spawn-server.js';
import { createTestDatabase, dropTestDatabases } from '../store/pg-helper.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
const VARIANTS24 = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Fleet pitch one.' } }],
  vary: {
    avatar_id: ['av_ava', 'av_marcus', 'av_lucia', 'av_jonas', 'av_claire', 'av_kenji'],
    voice_id: ['voice_en_rachel', 'voice_en_james'],
    voice_script: ['Fleet pitch one.', 'Fleet pitch two.'],
  },
};

let sim: Simulator;
let servers: SpawnedServer[] = [];
beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ timing: 'test' });
}, 120_000);
afterEach(async () => {
  await Promise.allSettled(servers.map((s) => s.close()));
  servers = [];
  sim.jobs.clearScripts();
});
afterAll(async () => {
  await sim?.close();
  await dropTestDatabases();
});

const call = (s: SpawnedServer, args: Record<string, unknown>) =>
  s.client.callTool({ name: 'create_campaign', arguments: args }) as Promise<CallToolResult>;
const until = async (cond: () => boolean, ms: number) => {
  for (const end = Date.now() + ms; !cond() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
};

async function env(): Promise<Record<string, string>> {
  return {
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_CONFIRM: 'never',
    GENPLAT_DATABASE_URL: await createTestDatabase(),
    GENPLAT_STATE_DIR: mkdtempSync(join(tmpdir(), 'genplat-campaign-fleet-')),
  };
}

describe('campaigns on 3 instances of one PostgreSQL store', () => {
  it('24 variants = 24 POSTs; the same call replayed on the other instances = 0 more', async () => {
    const e = await env();
    servers = [await spawnServer(e)];
    servers.push(await spawnServer(e), await spawnServer(e));
    // Long jobs: the campaign stays active while it is replayed.
    sim.jobs.scriptNext({ durationMs: 600_000 }, 24);
    const before = sim.log.count(POSTS);
    const first = await call(servers[0]!, VARIANTS24);
    expect((first.structuredContent as { handle?: string }).handle).toMatch(/^campaign:/);
    const replays = await Promise.all([call(servers[1]!, VARIANTS24), call(servers[2]!, VARIANTS24)]);
    // Each instance answers with the running campaign (issue 29: its handle, never an item's), sending nothing.
    const handle = (first.structuredContent as { handle: string }).handle;
    expect(replays.map((r) => (r.structuredContent as { handle?: string }).handle)).toEqual([handle, handle]);
    await until(() => sim.log.count(POSTS) - before >= 24, 30_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(sim.log.count(POSTS) - before).toBe(24);
  }, 120_000);

  it('kill -9 after 1 of 6 items: the other instances send the rest by themselves, 6 POSTs in all', async () => {
    const e = await env();
    const doomed = await spawnServer({ ...e, GENPLAT_TEST_KILL_AT: 'campaign_item_posted' });
    servers = [await spawnServer(e), await spawnServer(e)];
    const before = sim.log.count(POSTS);
    const six = {
      items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Fleet kill.' } }],
      vary: { avatar_id: ['av_ava', 'av_marcus', 'av_lucia'], voice_id: ['voice_en_rachel', 'voice_en_james'] },
    };
    await call(doomed, six).catch(() => undefined);
    await until(() => sim.log.count(POSTS) - before >= 1, 10_000);
    await doomed.close().catch(() => {});
    // The survivors' sweep (every 5 s) picks the campaign up; one of them holds its lease.
    await until(() => sim.log.count(POSTS) - before >= 6, 30_000);
    await new Promise((r) => setTimeout(r, 6_000));
    const bodies = sim.log
      .entries()
      .slice()
      .filter((x) => x.method === 'POST' && x.path === POSTS.path && /Fleet kill/.test(JSON.stringify(x.body)))
      .map((x) => JSON.stringify(x.body));
    expect(bodies).toHaveLength(6);
    expect(new Set(bodies).size).toBe(6);
  }, 120_000);
});
