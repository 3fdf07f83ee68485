/**
 * Subscriptions to genplat://campaigns/{id} (issue 21 item 4), 2025 era (`resources/subscribe`; a 2026-07-28
 * client listens with subscriptions/listen: test/http/campaign-listen.test.ts): the subscriber is told when an
 * item changes, without any wait call; a campaign nobody has, or another caller's, is refused.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type Harness, startHarness, structured, testEra } from '../helpers/harness.js';

const TWO = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Subscribed.' } }],
  vary: { avatar_id: ['av_ava', 'av_marcus'] },
};

let h: Harness | undefined;
let sim: Simulator | undefined;
afterEach(async () => {
  await h?.close();
  await sim?.close();
  h = undefined;
  sim = undefined;
});

async function campaign(jobMs: number): Promise<string> {
  sim = await startSimulator({ timing: { jobMs, slowOpMs: 10 } });
  h = await startHarness({ sim, config: { confirm: { mode: 'never' }, maxCreditsPerDay: 10_000 } });
  const s = structured(await h.call('create_campaign', TWO));
  expect(s.handle).toMatch(/^campaign:/);
  return (s.handle as string).slice('campaign:'.length);
}

const legacyOnly = it.skipIf(testEra() === 'modern');

describe('resources/subscribe to a campaign', () => {
  legacyOnly('the subscriber hears its items change without any wait call, until every item is done', async () => {
    const id = await campaign(600);
    const uri = `genplat://campaigns/${id}`;
    const heard: string[] = [];
    h!.client.setNotificationHandler('notifications/resources/updated', (n) => {
      heard.push(n.params.uri);
    });
    await h!.client.subscribeResource({ uri });
    await vi.waitFor(
      async () => {
        expect(heard).toContain(uri);
        const items = await h!.jobs.bundleItems(id);
        expect(items.every((r) => r.status === 'completed')).toBe(true);
      },
      { timeout: 15_000, interval: 50 },
    );
    const body = JSON.stringify(await h!.client.readResource({ uri }));
    expect(body).toContain('2 of 2 done');
    await h!.client.unsubscribeResource({ uri });
  });

  legacyOnly('a campaign nobody has is refused', async () => {
    await campaign(20);
    await expect(h!.client.subscribeResource({ uri: 'genplat://campaigns/nobody_has_this' })).rejects.toThrow(
      /no campaign/,
    );
  });

  legacyOnly("HTTP mode: a caller cannot subscribe to another caller's campaign", async () => {
    const id = await campaign(60_000);
    const other = await startHarness({ owner: 'someone-else', sim: h!.sim, stateDir: h!.stateDir });
    try {
      await expect(other.client.subscribeResource({ uri: `genplat://campaigns/${id}` })).rejects.toThrow(/no campaign/);
    } finally {
      await other.close();
    }
  });
});
