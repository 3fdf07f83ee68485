/**
 * kill -9 mid-campaign (issue 21 item 3): the built server SIGKILLs itself right after the first item's POST
 * was answered (`GENPLAT_TEST_KILL_AT=campaign_item_posted`), before it settled it. A fresh server on the same
 * state dir then sends the remaining items by itself (no call from the agent): exactly N POSTs in all, none
 * twice, the item whose answer was lost is never resent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { ensureBuilt, spawnServer } from '../helpers/spawn-server.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
const N = 6;
const CAMPAIGN = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Killed mid-campaign.' } }],
  vary: { avatar_id: ['av_ava', 'av_marcus', 'av_lucia'], voice_id: ['voice_en_rachel', 'voice_en_james'] },
};

let sim: Simulator;
const base = mkdtempSync(join(tmpdir(), 'genplat-campaign-kill-'));
beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ timing: 'test' });
}, 120_000);
afterAll(async () => {
  await sim?.close();
  rmSync(base, { recursive: true, force: true });
});

describe('kill -9 after 1 of N campaign items was POSTed, then restart', () => {
  it('the restarted server sends the rest by itself: exactly N POSTs, none twice', async () => {
    const env = {
      GENPLAT_BASE_URL: sim.baseUrl,
      GENPLAT_API_KEY: sim.apiKey,
      GENPLAT_CONFIRM: 'never',
      GENPLAT_STATE_DIR: base,
    };
    const doomed = await spawnServer({ ...env, GENPLAT_TEST_KILL_AT: 'campaign_item_posted' });
    // The call itself answers (admitted) before the sender's first POST; the process dies just after it.
    const admitted = (await doomed.client
      .callTool({ name: 'create_campaign', arguments: CAMPAIGN })
      .catch(() => undefined)) as CallToolResult | undefined;
    for (let i = 0; i < 1200 && sim.log.count(POSTS) < 1; i++) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 300));
    await doomed.close().catch(() => {});
    expect(sim.log.count(POSTS)).toBe(1);
    if (admitted && !admitted.isError)
      expect((admitted.structuredContent as { handle: string }).handle).toMatch(/^campaign:/);

    let store = await openSqliteStore(base);
    const items = await store.list();
    expect(items).toHaveLength(N);
    // The item whose answer was lost stays pending (never resent); the rest wait queued.
    expect(items.filter((r) => r.outcome === 'pending')).toHaveLength(1);
    expect(items.filter((r) => r.outcome === 'queued')).toHaveLength(N - 1);
    await store.close();

    const after = await spawnServer(env);
    try {
      for (let i = 0; i < 2400 && sim.log.count(POSTS) < N; i++) await new Promise((r) => setTimeout(r, 25));
      // A little longer: a second send of anything would show up here.
      await new Promise((r) => setTimeout(r, 500));
      expect(sim.log.count(POSTS)).toBe(N);
      const bodies = sim.log
        .entries()
        .filter((e) => e.method === 'POST' && e.path === POSTS.path)
        .map((e) => JSON.stringify(e.body));
      expect(new Set(bodies).size).toBe(N);
    } finally {
      await after.close();
    }
    store = await openSqliteStore(base);
    const final = await store.list();
    expect(final.filter((r) => r.outcome === 'submitted')).toHaveLength(N - 1);
    expect(final.filter((r) => r.outcome === 'pending')).toHaveLength(1);
    await store.close();
  }, 120_000);
});
