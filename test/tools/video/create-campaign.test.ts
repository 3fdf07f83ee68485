/**
 * create_campaign's own validation (issue 21 item 1): every item goes through its own tool's schema and
 * validate; errors name `items[i].<field>` and nothing is POSTed. The paid flow: test/campaigns/.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, text } from '../../helpers/harness.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
const VARIANTS24 = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Hot coffee all day.' } }],
  vary: {
    avatar_id: ['av_ava', 'av_marcus', 'av_lucia', 'av_jonas', 'av_claire', 'av_kenji'],
    voice_id: ['voice_en_rachel', 'voice_en_james'],
    voice_script: ['Hot coffee all day.', 'Still hot at five.'],
  },
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const start = async () => {
  h = await startHarness({ config: { confirm: { mode: 'always' } } });
};
const posts = () => h!.sim.log.count(POSTS);
const requests = () => h!.sim.log.entries().length;

describe('create_campaign: validation (free)', () => {
  it('names the item index and field, with 0 requests to the platform', async () => {
    await start();
    const before = requests();
    const bad = await h!.call('create_campaign', {
      items: [
        { tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'ok' } },
        { tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'ok', voice_id: 'nope' } },
      ],
    });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('items[1].voice_id');
    const missing = await h!.call('create_campaign', {
      items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava' } }],
    });
    expect(text(missing)).toContain('items[0].voice_script');
    const extra = await h!.call('create_campaign', {
      items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'x', colour: 1 } }],
    });
    expect(text(extra)).toContain('items[0].colour');
    const tooMany = await h!.call('create_campaign', {
      ...VARIANTS24,
      vary: { ...VARIANTS24.vary, voice_script: ['a', 'b', 'c', 'd', 'e'] },
    });
    expect(text(tooMany)).toMatch(/"vary": expands to 60 items; at most 50/);
    // Catalog reads (free GETs) may happen; no POST ever does.
    expect(posts()).toBe(0);
    expect(
      h!.sim.log
        .entries()
        .slice(before)
        .filter((e) => e.method === 'POST'),
    ).toEqual([]);
  });
});

describe('create_campaign: what an item may be', () => {
  it('refuses a tool a campaign cannot hold, and vary over several items, naming the field', async () => {
    await start();
    const avatar = await h!.call('create_campaign', { items: [{ tool: 'create_custom_avatar', arguments: {} }] });
    expect(text(avatar)).toMatch(/items\[0\]\.tool.*one of animate_gesture/);
    // upscale_video is an item since the board's upscale step; its own schema names what is missing.
    const upscale = await h!.call('create_campaign', { items: [{ tool: 'upscale_video', arguments: {} }] });
    expect(text(upscale)).toMatch(/items\[0\]\.video_id/);
    const two = await h!.call('create_campaign', { ...VARIANTS24, items: [VARIANTS24.items[0], VARIANTS24.items[0]] });
    expect(text(two)).toMatch(/"items": with vary, give exactly one base item/);
    expect(h!.sim.log.entries().filter((e) => e.method === 'POST')).toEqual([]);
  });
});
