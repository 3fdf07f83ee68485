/**
 * A repeated confirm of a campaign (issue 29 item 2): the same confirmation token redeemed twice (a double click
 * on the App's Confirm, a bot that retries), or the same create_campaign asked again while it runs, answers with
 * the campaign's own handle and its current state — never an item's handle — and sends nothing more.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Harness, startHarness, structured } from '../helpers/harness.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
/** 6 variants of one talking video. */
const SIX = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Twice is once.' } }],
  vary: { avatar_id: ['av_ava', 'av_marcus', 'av_lucia', 'av_jonas', 'av_claire', 'av_kenji'] },
};

let h: Harness | undefined;
afterEach(async () => {
  h?.sim.jobs.clearScripts();
  await h?.close();
  h = undefined;
});

async function start(): Promise<Harness> {
  h = await startHarness({ config: { confirm: { mode: 'always' }, maxCreditsPerDay: 10_000 } });
  return h;
}
const posts = () => h!.sim.log.count(POSTS);

/** Quote, then confirm once: the campaign's handle. */
async function confirmed(): Promise<{ handle: string; token: string }> {
  const q = structured(await h!.call('create_campaign', SIX));
  expect(q.status).toBe('confirmation_required');
  const s = structured(await h!.call('create_campaign', { ...SIX, confirmation_token: q.confirmation_token }));
  expect(s.status).toBe('submitted');
  expect(s.handle).toMatch(/^campaign:/);
  return { handle: s.handle as string, token: q.confirmation_token as string };
}

describe('a repeated confirm of a campaign', () => {
  it("the same token again while items run: the campaign's handle and state, nothing sent", async () => {
    await start();
    // Items 0-4 finish at once, item 5 keeps running: the double click that pointed at "item 5 of 6".
    h!.sim.jobs.scriptNext({ durationMs: 10 }, 5);
    h!.sim.jobs.scriptNext({ durationMs: 600_000 }, 1);
    const { handle, token } = await confirmed();
    await vi.waitFor(() => expect(posts()).toBe(6), { timeout: 20_000, interval: 20 });
    const again = await h!.call('create_campaign', { ...SIX, confirmation_token: token });
    expect(again.isError).toBeFalsy();
    const a = structured(again);
    expect(a.handle).toBe(handle);
    expect(a.kind).toBe('campaign');
    expect(a.status).toBe('processing');
    expect((a.details as { campaign: { total: number } }).campaign.total).toBe(6);
    expect(a.next_step).toMatch(/already confirmed/i);
    // Items keep their handles in details.campaign.items; what the bot is told to follow is the campaign.
    expect(a.next_step).toContain(handle);
    expect(a.next_step).not.toMatch(/actor_video:|submission:/);
    expect(posts()).toBe(6);
  });

  it("the same call again without a token (a second consent click): the campaign's handle", async () => {
    await start();
    h!.sim.jobs.scriptNext({ durationMs: 600_000 }, 6);
    const { handle } = await confirmed();
    const again = await h!.call('create_campaign', SIX);
    expect(again.isError).toBeFalsy();
    expect(structured(again).handle).toBe(handle);
    expect(posts()).toBeLessThanOrEqual(6);
  });

  it("two confirms at once with one token: both answers carry the campaign's handle, 6 POSTs", async () => {
    await start();
    h!.sim.jobs.scriptNext({ durationMs: 600_000 }, 6);
    const q = structured(await h!.call('create_campaign', SIX));
    const args = { ...SIX, confirmation_token: q.confirmation_token };
    const [a, b] = await Promise.all([h!.call('create_campaign', args), h!.call('create_campaign', args)]);
    const handles = [structured(a).handle, structured(b).handle];
    expect(a.isError || b.isError).toBeFalsy();
    expect(handles[0]).toMatch(/^campaign:/);
    expect(handles[1]).toBe(handles[0]);
    await vi.waitFor(() => expect(posts()).toBe(6), { timeout: 20_000, interval: 20 });
  });
});
