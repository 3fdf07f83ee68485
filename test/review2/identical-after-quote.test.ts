/**
 * Review 2: the identical-items refusal (change 2, pipeline.ts runPaidCall `firstIdenticalItem`) runs only after
 * `prepareCall`, i.e. after every item's validate and estimate. A campaign that also holds an upscale_video item
 * has already sent POST /upscale/quote (a platform request that may probe for up to 370 s) before it is refused
 * for two identical items — a check that needs nothing but the arguments. The commit and
 * test/campaigns/identical-items.test.ts promise "refused for free ... 0 requests" (no non-GET request).
 * Same class: an upscale item whose video has an active attempt is refused only after the earlier items' quotes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

const MODEL = { model_family: 'precision', model: 'sandbox-precision-1', target_resolution: '1080p' };
const TALK = { tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Same take.' } };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function oneGestureVideo(harness: Harness) {
  const args = {
    items: [{ tool: 'animate_gesture', arguments: { prompt: 'waves', image_url: 'https://example.com/p.png' } }],
  };
  const q = structured(await harness.call('create_campaign', args));
  const s =
    q.status === 'confirmation_required'
      ? structured(await harness.call('create_campaign', { ...args, confirmation_token: q.confirmation_token }))
      : q;
  expect(text(await harness.call('wait_for_jobs', { handles: [s.handle], max_wait_s: 30 }))).toMatch(/1 of 1 done/);
  const view = structured(await harness.call('get_job', { handle: s.handle })) as {
    details: { campaign: { items: { upscale?: Record<string, string> }[] } };
  };
  return view.details.campaign.items[0]!.upscale!;
}

describe('identical items next to an upscale item', () => {
  it('is refused before any non-GET platform request', async () => {
    h = await startHarness({ config: { confirm: { mode: 'always' } } });
    const src = await oneGestureVideo(h);
    const before = h.sim.log.entries().length;
    const r = await h.call('create_campaign', {
      items: [{ tool: 'upscale_video', arguments: { ...src, ...MODEL } }, TALK, TALK],
    });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/items\[2\].*identical to items\[1\]/);
    const sent = h.sim.log
      .entries()
      .slice(before)
      .filter((e) => e.method !== 'GET')
      .map((e) => `${e.method} ${e.path}`);
    // Before the fix, ["POST /upscale/quote"] was sent before the refusal.
    expect(sent).toEqual([]);
  });
});
