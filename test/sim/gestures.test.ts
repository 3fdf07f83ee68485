import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchBytes, get, isMp4, PUBLIC_IMAGE, post, type Simulator, startSimulator, waitFor } from './helpers.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());

const body = { prompt: 'wave hello', image_url: PUBLIC_IMAGE };

describe('gestures', () => {
  it('returns id, project_id, processing and credits_charged, then video_url when completed', async () => {
    const r = await post(sim, '/gestures/generate', body);
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({
      id: expect.any(String),
      project_id: expect.any(String),
      status: 'processing',
      credits_charged: 100,
    });
    const done = await waitFor(async () => {
      const s = await get(sim, '/gestures/status', { id: r.json.data.id });
      return s.json.data.status === 'processing' ? undefined : s.json.data;
    }, 'gesture job');
    expect(done).toMatchObject({ id: r.json.data.id, project_id: r.json.data.project_id, status: 'completed' });
    expect(done.url).toBeUndefined();
    expect(isMp4(await fetchBytes(done.video_url))).toBe(true);
    expect(sim.ownedVideos.get(r.json.data.id)?.videoType).toBe('gestures');
  });

  it('reuses an existing project of the account', async () => {
    const first = await post(sim, '/gestures/generate', body);
    const again = await post(sim, '/gestures/generate', { ...body, project_id: first.json.data.project_id });
    expect(again.json.data.project_id).toBe(first.json.data.project_id);
  });

  it.each([
    [{ prompt: undefined }, 400, /^prompt: is required/],
    [{ image_url: undefined }, 400, /^image_url: is required/],
    [{ image_url: 'https://me:pw@cdn.example.com/a.png' }, 400, /^image_url: must be a public/],
    [{ image_url: 'http://[fe80::1]/a.png' }, 400, /^image_url: /],
    [{ project_id: 'proj_nope' }, 404, /project not found/],
  ])('rejects %j', async (patch, status, message) => {
    const r = await post(sim, '/gestures/generate', { ...body, ...patch });
    expect(r.status).toBe(status);
    expect(r.json.message).toMatch(message);
  });

  it('another account cannot read the job', async () => {
    const r = await post(sim, '/gestures/generate', body);
    sim.accounts.add({ key: 'sk-g-other' });
    expect((await get(sim, '/gestures/status', { id: r.json.data.id }, { key: 'sk-g-other' })).status).toBe(404);
  });
});
