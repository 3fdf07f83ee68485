/**
 * Hostile review (issue 21): the campaign's admission commits, but its answer is lost (a connection cut at COMMIT).
 * A single call releases its intent in that case (src/paid/pipeline.ts `admitOrRelease`, issue 19 review L2).
 * `admitCampaignCall` (src/paid/campaign.ts) has no such path: the agent gets an error, yet every item stays
 * `queued` — counted in today's spend, and picked up by the next sweep (`queuedBundles`), which POSTs them all:
 * the person is charged for a call the agent was told failed. EXPECTED TO FAIL until fixed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { type Harness, startHarness } from '../helpers/harness.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
let h: Harness | undefined;
let store: Store | undefined;
afterAll(() => h?.close());

describe('a campaign admission whose answer is lost', () => {
  it('leaves nothing queued for a later sweep to send', async () => {
    let loseNextAnswer = true;
    h = await startHarness({
      store: async (stateDir) => {
        const real = await openSqliteStore(stateDir);
        store = real;
        return new Proxy(real, {
          get(target, key) {
            const v = (target as unknown as Record<string | symbol, unknown>)[key];
            if (key !== 'admitBundle' || typeof v !== 'function') return typeof v === 'function' ? v.bind(target) : v;
            return async (...args: unknown[]) => {
              const r = await (v as (...a: unknown[]) => unknown).apply(target, args);
              if (loseNextAnswer) {
                loseNextAnswer = false;
                throw new Error('Connection terminated unexpectedly (after COMMIT)');
              }
              return r;
            };
          },
        }) as Store;
      },
    });
    const first = await h.call('create_campaign', {
      items: [
        { tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Lost answer one.' } },
        { tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Lost answer two.' } },
      ],
    });
    expect(first.isError).toBe(true);
    expect(h.sim.log.count(POSTS)).toBe(0);
    // What a sweeper (this process's, a restarted one's, another instance's) would send next.
    expect(await store!.queuedBundles()).toEqual([]);
    expect((await h.jobs.list({})).map((r) => r.outcome).filter((o) => o === 'queued')).toEqual([]);
  });
});
