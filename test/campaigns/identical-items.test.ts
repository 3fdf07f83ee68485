/**
 * Issue 21, review finding 2: two items of one campaign with the same tool and request are two jobs and two
 * charges for one variant. Refused before the quote (free: no consent asked, 0 requests), naming the repeated
 * item and the one it repeats; `allow_duplicate: true` (several takes on purpose) quotes and sends both.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
const ITEM = { tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Same take.' } };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('identical items in one campaign', () => {
  it('listed twice: refused for free, naming items[2] and items[0]', async () => {
    h = await startHarness({ config: { confirm: { mode: 'always' } } });
    const other = { ...ITEM, arguments: { ...ITEM.arguments, avatar_id: 'av_marcus' } };
    const r = await h.call('create_campaign', { items: [ITEM, other, ITEM] });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/items\[2\].*identical to items\[0\]/);
    expect(text(r)).toMatch(/allow_duplicate/);
    expect(structured(r).confirmation_token).toBeUndefined();
    expect(h.sim.log.entries().filter((e) => e.method !== 'GET')).toEqual([]);
  });

  it('made identical by vary (the same value twice): refused for free', async () => {
    h = await startHarness({ config: { confirm: { mode: 'never' } } });
    const r = await h.call('create_campaign', {
      items: [ITEM],
      vary: { voice_id: ['voice_en_james', 'voice_en_james'] },
    });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/items\[1\].*identical to items\[0\]/);
    expect(h.sim.log.count(POSTS)).toBe(0);
  });

  it('with allow_duplicate: true, both takes are quoted, consented and sent once each', async () => {
    h = await startHarness({ config: { confirm: { mode: 'never' } } });
    const r = await h.call('create_campaign', { items: [ITEM, ITEM], allow_duplicate: true });
    expect(r.isError, text(r)).toBeFalsy();
    const w = await h.call('wait_for_jobs', { handles: [structured(r).handle], max_wait_s: 30 });
    expect(text(w)).toMatch(/2 of 2 done/);
    expect(h.sim.log.count(POSTS)).toBe(2);
  });
});
