/** The dedicated family routes over HTTP: feature gate, top-level body, pricing, status, owned videos. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/sim/index.js';
import { call as simCall } from './helpers.js';

type Sim = Awaited<ReturnType<typeof startSimulator>>;
let sim: Sim;

beforeAll(async () => {
  sim = await startSimulator({ timing: 'test' });
});
afterAll(async () => {
  await sim.close();
});

/** The shared plain-fetch helper, in this file's (method, path, body, key) shape. */
async function call(method: 'GET' | 'POST', path: string, body?: unknown, key = sim.apiKey) {
  const r = await simCall(sim, method, path, { body, key });
  return { status: r.status, body: r.json };
}

const BODY = {
  model: 'seedance-2.5',
  prompt: 'a cat surfing',
  duration: 5,
  aspect_ratio: '9:16',
  resolution: '720p',
  generate_audio: true,
};

async function waitDone(id: string, key?: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await call('GET', `/seedance/status?id=${id}`, undefined, key);
    expect(r.status).toBe(200);
    if (r.body.data.status !== 'processing') return r.body.data;
    if (Date.now() > deadline) throw new Error('family job did not finish');
    await new Promise((res) => setTimeout(res, 10));
  }
}

describe('POST /<vendorC>/generate', () => {
  it('runs to a completed video with a fetchable url, charged by the sandbox table', async () => {
    const acct = sim.accounts.add({ key: 'fam', credits: 1000 });
    const r = await call('POST', '/seedance/generate', BODY, 'fam');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.status).toBe(true);
    expect(r.body.data).toMatchObject({
      model: 'seedance-2.5',
      status: 'processing',
      estimated_credits: 50,
      credits_charged: 50,
    });
    expect(acct.credits).toBe(950);
    const done = await waitDone(r.body.data.id, 'fam');
    expect(done).toMatchObject({ id: r.body.data.id, status: 'completed', url: expect.stringMatching(/^http/) });
    const media = await fetch(done.url);
    expect(media.headers.get('content-type')).toBe('video/mp4');
  });

  it('registers finished videos as owned videos with the family video_type and geometry', async () => {
    const a = await call('POST', '/seedance/generate', { ...BODY, resolution: '1080p', aspect_ratio: '16:9' });
    const b = await call('POST', '/seedance/generate', { ...BODY, model: 'seedance-2.0-fast' });
    await waitDone(a.body.data.id);
    await waitDone(b.body.data.id);
    expect(sim.ownedVideos.get(a.body.data.id)).toMatchObject({
      videoType: 'seedance_25_video',
      projectId: a.body.data.project_id,
      width: 1920,
      height: 1080,
      durationS: 5,
    });
    expect(sim.ownedVideos.get(b.body.data.id)?.videoType).toBe('seedance_2_video');
  });

  it('accepts and ignores webhook_url (the family does not forward it)', async () => {
    const r = await call('POST', '/seedance/generate', { ...BODY, webhook_url: 'https://hooks.example.com/x' });
    expect(r.status).toBe(200);
  });

  it('answers 403 without the dedicated-family feature, and for a free subscription', async () => {
    sim.accounts.add({ key: 'no-family', features: { customAvatar: true, dedicatedFamily: false } });
    const r = await call('POST', '/seedance/generate', BODY, 'no-family');
    expect(r.status).toBe(403);
    expect(r.body.status).toBe(false);
    sim.accounts.add({ key: 'free', subscription: 'free' });
    expect((await call('POST', '/seedance/generate', BODY, 'free')).status).toBe(403);
  });

  it('rejects a params envelope and invalid fields, charging nothing', async () => {
    const acct = sim.accounts.add({ key: 'fam-bad', credits: 500 });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ model: 'seedance-2.5', params: { prompt: 'x' } }, /params:/],
      [{ ...BODY, model: 'seedance-3' }, /model:/],
      [{ ...BODY, duration: '5' }, /duration: must be an integer/],
      [{ ...BODY, duration: 7 }, /duration: must be one of/],
      [{ ...BODY, resolution: '4k' }, /resolution:/],
    ];
    for (const [body, message] of cases) {
      const r = await call('POST', '/seedance/generate', body, 'fam-bad');
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toMatch(message);
    }
    expect(acct.credits).toBe(500);
  });

  it('answers 402 when the balance does not cover the price', async () => {
    const acct = sim.accounts.add({ key: 'fam-poor', credits: 10 });
    expect((await call('POST', '/seedance/generate', BODY, 'fam-poor')).status).toBe(402);
    expect(acct.credits).toBe(10);
  });

  it('follows vendor C from the vendor map', async () => {
    const other = await startSimulator({ timing: 'test', vendors: { C: 'acme' } });
    try {
      const res = await fetch(`${other.baseUrl}/acme/generate`, {
        method: 'POST',
        headers: { 'x-api-key': other.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ ...BODY, model: 'acme-2.0' }),
      });
      expect(res.status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('GET /<vendorC>/status', () => {
  it('reports processing without a url, then failed with the reason', async () => {
    sim.jobs.scriptNext({ durationMs: 60_000 });
    const slow = await call('POST', '/seedance/generate', BODY);
    const s = await call('GET', `/seedance/status?id=${slow.body.data.id}`);
    expect(s.body.data).toEqual(expect.objectContaining({ status: 'processing' }));
    expect(s.body.data.url).toBeUndefined();
    sim.jobs.scriptNext({ outcome: { kind: 'fail', reason: 'moderation' } });
    const bad = await call('POST', '/seedance/generate', BODY);
    expect(await waitDone(bad.body.data.id)).toMatchObject({ status: 'failed', reason: 'moderation' });
    expect(sim.ownedVideos.has(bad.body.data.id)).toBe(false);
  });

  it('requires id and hides other accounts’ jobs', async () => {
    expect((await call('GET', '/seedance/status')).status).toBe(400);
    const r = await call('POST', '/seedance/generate', BODY);
    sim.accounts.add({ key: 'fam-other' });
    expect((await call('GET', `/seedance/status?id=${r.body.data.id}`, undefined, 'fam-other')).status).toBe(404);
  });
});
