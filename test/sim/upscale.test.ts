/**
 * Upscale over HTTP: strict bodies, owned-video lookup, source limits and geometry on the seeded videos,
 * the attempt lifecycle (preparing → charged → completed), refunded and failed attempts, and the
 * non-idempotent double submit. A fresh simulator per test, because upscaling changes the seeded videos.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/sim/index.js';
import { call as simCall } from './helpers.js';

type Sim = Awaited<ReturnType<typeof startSimulator>>;
let sim: Sim;

beforeEach(async () => {
  sim = await startSimulator({ timing: 'test' });
});
afterEach(async () => {
  await sim.close();
});

/** The shared plain-fetch helper, in this file's (method, path, body, key) shape. */
async function call(method: 'GET' | 'POST', path: string, body?: unknown, key = sim.apiKey) {
  const r = await simCall(sim, method, path, { body, key });
  return { status: r.status, body: r.json };
}

const OK = {
  video_id: 'vid_seed_ok',
  project_id: 'proj_seed_ok',
  video_type: 'video',
  model_family: 'precision',
  model: 'sandbox-precision-1',
  target_resolution: '2160p',
};
const seed = (id: 'ok' | 'long' | 'fps' | '4k') => ({
  ...OK,
  video_id: `vid_seed_${id}`,
  project_id: `proj_seed_${id}`,
});

const statusQuery = (g: { id: string; billing_id: string; project_id: string }, videoType = 'video') =>
  `/upscale/status?video_id=${g.id}&project_id=${g.project_id}&video_type=${videoType}&billing_id=${g.billing_id}`;

/** Polls the attempt until a terminal state, recording every state seen in order. */
async function follow(g: { id: string; billing_id: string; project_id: string }, onRead?: (d: any) => void) {
  const seen: string[] = [];
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await call('GET', statusQuery(g));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const d = r.body.data;
    onRead?.(d);
    if (seen.at(-1) !== d.status) seen.push(d.status);
    if (['completed', 'refunded', 'failed'].includes(d.status)) return { seen, last: d };
    if (Date.now() > deadline) throw new Error(`attempt stuck: ${JSON.stringify(d)}`);
    await new Promise((res) => setTimeout(res, 10));
  }
}

describe('POST /upscale/quote', () => {
  it('probes an owned video and prices it', async () => {
    const r = await call('POST', '/upscale/quote', OK);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.status).toBe(true);
    expect(r.body.data).toMatchObject({
      success: true,
      videoId: 'vid_seed_ok',
      modelFamily: 'precision',
      model: 'sandbox-precision-1',
      upscaleFactor: 3,
      metadata: { width: 720, height: 1280, duration: 30, fps: 30, frames: 900 },
      quote: { credits: 90 },
    });
    const g = await call('POST', '/upscale/quote', { ...OK, model_family: 'creative' });
    expect(g.body.data.quote.credits).toBe(450);
  });

  it('enforces the source limits and the geometry on the seeded videos', async () => {
    const long = await call('POST', '/upscale/quote', seed('long'));
    expect(long.status).toBe(400);
    expect(long.body.message).toMatch(/400 s/);
    const fps = await call('POST', '/upscale/quote', seed('fps'));
    expect(fps.status).toBe(400);
    expect(fps.body.message).toMatch(/120 fps/);
    const down = await call('POST', '/upscale/quote', { ...seed('4k'), target_resolution: '1080p' });
    expect(down.status).toBe(400);
    expect(down.body.message).toMatch(/unsupported geometry/);
    // Factor 1 is inside the spec's 1-4, and 2160x3840 is exactly the output bound.
    const same = await call('POST', '/upscale/quote', seed('4k'));
    expect(same.body.data.upscaleFactor).toBe(1);
  });

  it('is strict: unknown fields, user_id, webhook_url', async () => {
    for (const [extra, message] of [
      [{ priority: 'high' }, /priority: unknown parameter/],
      [{ user_id: 'u1' }, /user_id/],
      [{ webhook_url: 'https://hooks.example.com/x' }, /webhook_url/],
    ] as const) {
      const r = await call('POST', '/upscale/quote', { ...OK, ...extra });
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(message);
    }
    const missing = await call('POST', '/upscale/quote', { ...OK, model: undefined });
    expect(missing.body.message).toMatch(/^model: is required/);
  });

  it('answers 404 for a wrong project, a wrong type, or another account’s video', async () => {
    expect((await call('POST', '/upscale/quote', { ...OK, project_id: 'proj_seed_long' })).status).toBe(404);
    expect((await call('POST', '/upscale/quote', { ...OK, video_type: 'b-roll' })).status).toBe(404);
    sim.accounts.add({ key: 'up-other' });
    expect((await call('POST', '/upscale/quote', OK, 'up-other')).status).toBe(404);
  });

  it('needs a paid subscription and a positive balance', async () => {
    sim.accounts.add({ key: 'up-free', subscription: 'free' });
    expect((await call('POST', '/upscale/quote', OK, 'up-free')).status).toBe(403);
    sim.accounts.add({ key: 'up-empty', credits: 0 });
    expect((await call('POST', '/upscale/quote', OK, 'up-empty')).status).toBe(400);
  });
});

describe('POST /upscale/generate and GET /upscale/status', () => {
  it('moves preparing → charged → completed and replaces the video url only at the end', async () => {
    const acct = sim.accounts.get(sim.apiKey)!;
    const before = acct.credits;
    const original = sim.ownedVideos.get('vid_seed_ok')!.url;
    sim.jobs.scriptNext({ durationMs: 3000 });
    const r = await call('POST', '/upscale/generate', OK);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ id: 'vid_seed_ok', project_id: 'proj_seed_ok', status: 'processing' });
    expect(typeof r.body.data.billing_id).toBe('string');
    expect(acct.credits).toBe(before - 90);
    const { seen, last } = await follow(r.body.data, (d) => {
      if (d.status !== 'completed') {
        expect(d.video_url).toBeNull();
        expect(sim.ownedVideos.get('vid_seed_ok')!.url).toBe(original);
        expect(d.credits_charged).toBe(d.status === 'preparing' ? 0 : 90);
      }
    });
    expect(seen.filter((s) => s !== 'preparing')).toEqual(['charged', 'completed']);
    expect(seen.indexOf('preparing')).toBeLessThanOrEqual(0);
    expect(last).toMatchObject({ id: 'vid_seed_ok', credits_charged: 90, credits_refunded: 0, error: null });
    expect(last.video_url).toMatch(/^http/);
    expect(last.video_url).not.toBe(original);
    expect((await fetch(last.video_url)).status).toBe(200);
    expect(sim.ownedVideos.get('vid_seed_ok')).toMatchObject({ url: last.video_url, width: 2160, height: 3840 });
  });

  it('refunds an attempt scripted to fail with "refund" and keeps the original video', async () => {
    const acct = sim.accounts.get(sim.apiKey)!;
    const before = acct.credits;
    const original = sim.ownedVideos.get('vid_seed_ok')!.url;
    sim.jobs.scriptNext({ outcome: { kind: 'fail', reason: 'provider timeout; credits refunded' } });
    const r = await call('POST', '/upscale/generate', { ...OK, target_resolution: '1080p' });
    const { last } = await follow(r.body.data);
    expect(last).toMatchObject({ status: 'refunded', credits_charged: 45, credits_refunded: 45, video_url: null });
    expect(acct.credits).toBe(before);
    // A second read does not refund twice.
    await call('GET', statusQuery(r.body.data));
    expect(acct.credits).toBe(before);
    expect(sim.ownedVideos.get('vid_seed_ok')!.url).toBe(original);
  });

  it('reports any other scripted failure as failed with the error and no refund', async () => {
    const acct = sim.accounts.get(sim.apiKey)!;
    const before = acct.credits;
    sim.jobs.scriptNext({ outcome: { kind: 'fail', reason: 'decoder crashed' } });
    const r = await call('POST', '/upscale/generate', OK);
    const { last } = await follow(r.body.data);
    expect(last).toMatchObject({ status: 'failed', error: 'decoder crashed', credits_refunded: 0, video_url: null });
    expect(acct.credits).toBe(before - 90);
  });

  it('accepts and charges a second submit while an attempt is active (not idempotent)', async () => {
    const acct = sim.accounts.get(sim.apiKey)!;
    const before = acct.credits;
    sim.jobs.scriptNext({ durationMs: 60_000 }, 2);
    const a = await call('POST', '/upscale/generate', OK);
    const b = await call('POST', '/upscale/generate', OK);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.data.billing_id).not.toBe(b.body.data.billing_id);
    expect(acct.credits).toBe(before - 180);
  });

  it('prices generate from the current video, after an earlier upscale changed it', async () => {
    const r = await call('POST', '/upscale/generate', { ...OK, target_resolution: '1080p' });
    await follow(r.body.data);
    const q = await call('POST', '/upscale/quote', OK);
    expect(q.body.data).toMatchObject({
      upscaleFactor: 2,
      metadata: { width: 1080, height: 1920 },
      quote: { credits: 60 },
    });
  });

  it('rejects generate on a source over the limits without charging', async () => {
    const acct = sim.accounts.get(sim.apiKey)!;
    const before = acct.credits;
    expect((await call('POST', '/upscale/generate', seed('long'))).status).toBe(400);
    expect((await call('POST', '/upscale/generate', { ...OK, webhook_url: 'https://h.example.com' })).status).toBe(400);
    expect(acct.credits).toBe(before);
  });

  it('answers 400 when the balance does not cover the attempt', async () => {
    sim.accounts.add({ key: 'up-low', credits: 50 });
    sim.ownedVideos.set('vid_low', {
      ...sim.ownedVideos.get('vid_seed_ok')!,
      videoId: 'vid_low',
      accountKey: 'up-low',
    });
    const r = await call('POST', '/upscale/generate', { ...OK, video_id: 'vid_low' }, 'up-low');
    expect(r.status).toBe(400);
    expect(sim.accounts.get('up-low')!.credits).toBe(50);
  });

  it('status needs all four query params and matching ids', async () => {
    const r = await call('POST', '/upscale/generate', OK);
    const g = r.body.data;
    for (const missing of ['video_id', 'project_id', 'video_type', 'billing_id']) {
      const q = new URLSearchParams({
        video_id: g.id,
        project_id: g.project_id,
        video_type: 'video',
        billing_id: g.billing_id,
      });
      q.delete(missing);
      const s = await call('GET', `/upscale/status?${q}`);
      expect(s.status).toBe(400);
      expect(s.body.message).toMatch(new RegExp(`^${missing}: is required`));
    }
    expect((await call('GET', statusQuery(g, 'b-roll'))).status).toBe(404);
    expect((await call('GET', statusQuery({ ...g, billing_id: 'nope' }))).status).toBe(404);
    sim.accounts.add({ key: 'up-spy' });
    expect((await call('GET', statusQuery(g), undefined, 'up-spy')).status).toBe(404);
  });

  it('upscales a finished dedicated-family video under its family video_type', async () => {
    const f = await call('POST', '/seedance/generate', { model: 'seedance-2.5', prompt: 'x', resolution: '720p' });
    const id = f.body.data.id;
    const body = { ...OK, video_id: id, project_id: f.body.data.project_id, video_type: 'seedance_25_video' };
    const deadline = Date.now() + 10_000;
    let q = await call('POST', '/upscale/quote', body);
    while (q.status === 404 && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 10));
      q = await call('POST', '/upscale/quote', body);
    }
    expect(q.status, JSON.stringify(q.body)).toBe(200);
    expect(q.body.data.metadata).toMatchObject({ width: 720, height: 1280, duration: 5, fps: 24 });
  });
});
