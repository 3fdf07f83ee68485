/**
 * Campaigns (issue 21) through a real MCP client against the simulator (validation: test/tools/video/
 * create-campaign.test.ts): a 24-variant campaign = 1 consent and exactly 24 POSTs; the same call again = 0 more; over
 * the day ceiling or an item over the per-call ceiling = 0 POSTs with the limit named; a changed item voids the
 * token; every item's charge ≤ its quote.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/jobs/store.js';
import { type Harness, type HarnessOptions, startHarness, structured, text } from '../helpers/harness.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
const AVATARS = ['av_ava', 'av_marcus', 'av_lucia', 'av_jonas', 'av_claire', 'av_kenji'];
const VOICES = ['voice_en_rachel', 'voice_en_james'];
const SCRIPTS = ['Meet the bottle that keeps coffee hot all day.', 'Your coffee, still hot at five pm.'];

/** 6 avatars × 2 voices × 2 scripts = 24 variants of one talking video. */
const VARIANTS24 = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: SCRIPTS[0] } }],
  vary: { avatar_id: AVATARS, voice_id: VOICES, voice_script: SCRIPTS },
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(opts: HarnessOptions = {}): Promise<Harness> {
  h = await startHarness({
    ...opts,
    config: { confirm: { mode: 'always' }, maxCreditsPerDay: 10_000, ...opts.config },
  });
  return h;
}
const posts = () => h!.sim.log.count(POSTS);

/** Waits until no item of the campaign is queued or pending (the sender finished). */
async function settled(handle: string): Promise<JobRecord[]> {
  const id = handle.replace(/^campaign:/, '');
  for (let i = 0; i < 500; i++) {
    const items = await h!.jobs.bundleItems(id);
    if (items.length > 0 && items.every((r) => r.outcome !== 'queued' && r.outcome !== 'pending')) return items;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`campaign ${handle} did not finish sending`);
}

describe('create_campaign: one consent, each item POSTed once', () => {
  it('24 variants: one quote, one token, exactly 24 POSTs; the same call again: 0 more', async () => {
    await start();
    const quote = await h!.call('create_campaign', VARIANTS24);
    const q = structured(quote);
    expect(q.status).toBe('confirmation_required');
    expect(q.estimate).toMatchObject({ credits: 2400, bounded: true });
    expect(posts()).toBe(0);

    const sent = await h!.call('create_campaign', { ...VARIANTS24, confirmation_token: q.confirmation_token });
    const s = structured(sent);
    expect(s.status).toBe('submitted');
    expect(s.handle).toMatch(/^campaign:/);
    // Replayed while it runs (with the spent token, and without any): never a second POST.
    const replay = await h!.call('create_campaign', { ...VARIANTS24, confirmation_token: q.confirmation_token });
    expect(replay.isError).toBeFalsy();
    expect(structured(replay).handle).toBe(s.handle);
    // Asked again while it runs: that campaign (issue 29: its handle, never an item's; test/campaigns/repeat-confirm).
    const again = await h!.call('create_campaign', VARIANTS24);
    expect(structured(again).handle).toBe(s.handle);
    const items = await settled(s.handle!);
    expect(items).toHaveLength(24);
    expect(posts()).toBe(24);
    // Each item its own record, consented by the one token; every combination once.
    expect(new Set(items.map((r) => r.id)).size).toBe(24);
    expect(items.every((r) => r.consent === 'token' && r.outcome === 'submitted')).toBe(true);
    // What the platform received is exactly what was consented to: each item's stored request body, once.
    const received = h!.sim.log
      .entries()
      .filter((e) => e.method === 'POST' && e.path === POSTS.path)
      .map((e) => JSON.stringify(e.body));
    expect(received.sort()).toEqual(items.map((r) => JSON.stringify(r.campaign!.request.body)).sort());
    const combos = new Set(items.map((r) => JSON.stringify(r.campaign!.varied)));
    expect(combos.size).toBe(24);
    for (const r of items) {
      // Charge ≤ quote (the simulator's talking video charges its published 100).
      if (r.creditsCharged !== undefined) expect(r.creditsCharged).toBeLessThanOrEqual(r.estimate!.credits);
    }

    // The campaign resource: the same read model.
    const res = await h!.client.readResource({ uri: `genplat://campaigns/${s.handle!.slice('campaign:'.length)}` });
    const body = JSON.parse(String((res.contents[0] as { text: string }).text)) as {
      handle: string;
      details: { campaign: { total: number } };
    };
    expect(body.handle).toBe(s.handle);
    expect(body.details.campaign.total).toBe(24);

    // The campaign handle: get_job and wait_for_jobs report "k of N done", per item, outputs and charges.
    const read = structured(await h!.call('get_job', { handle: s.handle }));
    expect(read.handle).toBe(s.handle);
    const waited = await h!.call('wait_for_jobs', { handles: [s.handle], max_wait_s: 30 });
    const w = structured(waited) as unknown as {
      done: boolean;
      jobs: {
        status: string;
        details: {
          campaign: {
            progress: string;
            items: { status: string; quote: number; charged?: number; outputs: unknown[] }[];
          };
        };
      }[];
    };
    expect(w.done).toBe(true);
    const view = w.jobs[0]!.details.campaign;
    expect(view.progress).toBe('24 of 24 done');
    expect(view.items.every((i) => i.status === 'completed' && i.outputs.length > 0)).toBe(true);
    for (const i of view.items) expect(i.charged ?? 0).toBeLessThanOrEqual(i.quote);
    expect(posts()).toBe(24);

    expect(posts()).toBe(24);
  });

  it('a changed item voids the token: quoted again, 0 POSTs', async () => {
    await start();
    const q = structured(await h!.call('create_campaign', VARIANTS24));
    const changed = {
      ...VARIANTS24,
      vary: { ...VARIANTS24.vary, voice_script: [SCRIPTS[0], 'A different second script.'] },
    };
    const r = await h!.call('create_campaign', { ...changed, confirmation_token: q.confirmation_token });
    expect(structured(r).status).toBe('confirmation_required');
    expect(posts()).toBe(0);
  });
});

describe('create_campaign: the form carrier (2025 elicitation/create, 2026 input_required)', () => {
  it('one form for the whole campaign, naming the total: accept → 24 POSTs; decline → 0', async () => {
    const asked: string[] = [];
    let answer: 'accept' | 'decline' = 'decline';
    await start({
      onElicit: async (req) => {
        asked.push(req.params.message);
        return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
      },
    });
    const declined = await h!.call('create_campaign', VARIANTS24);
    expect(structured(declined).status).toBe('declined');
    expect(posts()).toBe(0);
    answer = 'accept';
    const r = structured(await h!.call('create_campaign', VARIANTS24));
    expect(r.handle).toMatch(/^campaign:/);
    const items = await settled(r.handle!);
    expect(posts()).toBe(24);
    expect(items.every((i) => i.consent === 'elicitation')).toBe(true);
    expect(asked).toHaveLength(2);
    expect(asked[1]).toMatch(/2,400 credits/);
  });
});

describe('create_campaign: ceilings (nothing admitted, nothing sent)', () => {
  it('over the day ceiling: 0 POSTs, the refusal names the limit and the excess', async () => {
    await start({ config: { maxCreditsPerDay: 2000, confirm: { mode: 'never' } } });
    const r = await h!.call('create_campaign', VARIANTS24);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/per-day ceiling of 2,000 credits \(GENPLAT_MAX_CREDITS_PER_DAY\), 400 credits over/);
    expect(posts()).toBe(0);
    expect(await h!.jobs.list()).toEqual([]);
  });

  it('an item over the per-call ceiling names the item: 0 POSTs', async () => {
    await start({ config: { maxCreditsPerCall: 99, confirm: { mode: 'never' } } });
    const r = await h!.call('create_campaign', VARIANTS24);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/Campaign item 0 \(items\[0\]\): .*above the per-call ceiling of 99 credits/);
    expect(posts()).toBe(0);
    expect(h!.sim.log.entries().filter((e) => e.method === 'POST')).toEqual([]);
  });
});

describe('create_campaign: consent window', () => {
  it('items not sent within the window are released: 0 POSTs, reservation returned, reported as released', async () => {
    // A 1 ms window: the sender finds every item past it (the token TTL is the window; policy consent here).
    await start({ config: { confirm: { mode: 'never' } }, tokenTtlMs: 1 });
    const r = structured(await h!.call('create_campaign', VARIANTS24));
    expect(r.handle).toMatch(/^campaign:/);
    const items = await settled(r.handle!);
    expect(items.every((i) => i.outcome === 'rejected')).toBe(true);
    expect(posts()).toBe(0);
    expect(await h!.jobs.spendSince(new Date(Date.UTC(2000, 0, 1)))).toBe(0);
    const view = structured(await h!.call('get_job', { handle: r.handle })) as unknown as {
      details: { campaign: { progress: string; items: { status: string; reason: string }[] } };
    };
    expect(view.details.campaign.progress).toBe('24 of 24 done');
    expect(view.details.campaign.items.every((i) => i.status === 'released' && /released/.test(i.reason))).toBe(true);
  });

  it('while queued, items count at their quote in the day spend (a reservation)', async () => {
    await start({ config: { confirm: { mode: 'never' }, maxCreditsPerDay: 3000 } });
    await h!.call('create_campaign', VARIANTS24);
    // Queued, sending or sent: the 24 items hold 2,400 of the day; a second campaign of 24 does not fit.
    const second = await h!.call('create_campaign', {
      ...VARIANTS24,
      items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Another pitch.' } }],
      vary: { ...VARIANTS24.vary, voice_script: ['Another pitch.', 'And another.'] },
    });
    expect(second.isError).toBe(true);
    expect(text(second)).toMatch(/2,400 credits already spent or held today/);
  });
});
