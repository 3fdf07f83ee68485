/**
 * Issue 21 item 5's paid step, server side: upscale_video as a campaign item. A finished campaign's videos carry
 * their upscale source fields (`details.campaign.items[i].upscale`); a campaign of upscales of 3 of them is one
 * quote and one consent and exactly 3 POST /upscale/generate; the token again, or the same campaign again, sends
 * nothing (one attempt per video: the exclusive key of each item); two items for one video are refused before
 * the quote.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

const UPSCALES = { method: 'POST', path: '/upscale/generate' } as const;
const MODEL = { model_family: 'precision', model: 'sandbox-precision-1', target_resolution: '1080p' };

type View = {
  handle: string;
  items: { status: string; upscale?: { video_id: string; project_id: string; video_type: string }; reason?: string }[];
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A consented campaign of 4 gesture videos, run to completion: its view. */
async function finishedGestures(harness: Harness): Promise<View> {
  const args = {
    items: [{ tool: 'animate_gesture', arguments: { prompt: 'waves', image_url: 'https://example.com/p.png' } }],
    vary: { prompt: ['waves', 'nods', 'points', 'smiles'] },
  };
  const q = structured(await harness.call('create_campaign', args));
  const started =
    q.status === 'confirmation_required'
      ? structured(await harness.call('create_campaign', { ...args, confirmation_token: q.confirmation_token }))
      : q;
  const w = await harness.call('wait_for_jobs', { handles: [started.handle], max_wait_s: 30 });
  expect(text(w)).toMatch(/4 of 4 done/);
  const view = structured(await harness.call('get_job', { handle: started.handle })) as { details: { campaign: View } };
  return view.details.campaign;
}

const upscaleItem = (src: NonNullable<View['items'][number]['upscale']>) => ({
  tool: 'upscale_video',
  arguments: { ...src, ...MODEL },
});

describe('upscale_video items in a campaign', () => {
  it('3 picked videos: 1 consent, exactly 3 upscale POSTs; the token again and the same campaign again send nothing', async () => {
    h = await startHarness({ config: { confirm: { mode: 'always' } } });
    const board = await finishedGestures(h);
    const sources = board.items.map((i) => i.upscale);
    expect(sources.every(Boolean), JSON.stringify(board.items)).toBe(true);
    const picked = { items: sources.slice(0, 3).map((s) => upscaleItem(s!)) };

    const quote = structured(await h.call('create_campaign', picked));
    expect(quote.status).toBe('confirmation_required');
    expect(h.sim.log.count(UPSCALES)).toBe(0);
    // The attempts run a while, so the second clicks below happen while they are active.
    h.sim.jobs.scriptNext({ durationMs: 3_000 }, 3);
    const started = structured(
      await h.call('create_campaign', { ...picked, confirmation_token: quote.confirmation_token }),
    );
    expect(String(started.handle)).toMatch(/^campaign:/);

    // A second click: the same token, then a fresh quote of the same picks. Nothing more is sent.
    const replay = await h.call('create_campaign', { ...picked, confirmation_token: quote.confirmation_token });
    expect(replay.isError === true || structured(replay).status === 'confirmation_required', text(replay)).toBe(true);
    const requote = await h.call('create_campaign', picked);
    expect(requote.isError, text(requote)).toBe(true);
    expect(text(requote)).toMatch(/items\[0\]\.video_id.*still active|already|duplicate/);

    const w = await h.call('wait_for_jobs', { handles: [started.handle], max_wait_s: 30 });
    expect(text(w)).toMatch(/3 of 3 done/);
    expect(h.sim.log.count(UPSCALES)).toBe(3);
  });

  it('an attempt for one of the videos still running: the campaign is refused naming that item, 0 upscale POSTs from it', async () => {
    h = await startHarness({ config: { confirm: { mode: 'never' } } });
    const board = await finishedGestures(h);
    const [a, b] = board.items.map((i) => i.upscale!);
    // Slow the single attempt so it is still processing when the campaign is admitted.
    h.sim.jobs.scriptNext({ durationMs: 60_000 });
    const single = await h.call('upscale_video', { ...b!, ...MODEL });
    expect(single.isError, text(single)).toBeFalsy();
    expect(h.sim.log.count(UPSCALES)).toBe(1);
    const r = await h.call('create_campaign', { items: [upscaleItem(a!), upscaleItem(b!)] });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/items\[1\]\.video_id.*still active/);
    expect(h.sim.log.count(UPSCALES)).toBe(1);
  });

  it('two items for one video: refused before the quote, free', async () => {
    h = await startHarness({ config: { confirm: { mode: 'always' } } });
    const board = await finishedGestures(h);
    const src = board.items[0]!.upscale!;
    const r = await h.call('create_campaign', {
      items: [upscaleItem(src), { tool: 'upscale_video', arguments: { ...src, ...MODEL, target_resolution: '2160p' } }],
    });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/items\[1\].*same video as items\[0\]/);
    expect(structured(r).confirmation_token).toBeUndefined();
    expect(h.sim.log.count(UPSCALES)).toBe(0);
  });
});
