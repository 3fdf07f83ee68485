import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fetchBytes,
  get,
  isMp4,
  PUBLIC_AUDIO,
  PUBLIC_IMAGE,
  post,
  type Simulator,
  startSimulator,
  waitForJob,
} from './helpers.js';

let sim: Simulator;
beforeAll(async () => {
  // Explicit names for the vendor letters prove the routes follow the vendor map.
  sim = await startSimulator({ vendors: { L: 'lumo', M: 'mimic', F: 'flick' } });
});
afterAll(() => sim.close());

const V2 = '/product-in-hand/lumo-v2/generate';
const HUMAN = '/product-in-hand/mimic-human/generate';
const SCENES = '/product-in-hand/flick/generate';
const tts = { image_url: PUBLIC_IMAGE, script: 'Try this serum tonight.', voice_id: 'voice_en_rachel' };
const scene = { script: 'Look at this.', description: 'Close-up of the bottle.' };

async function charged(path: string, body: unknown): Promise<{ status: number; cost: number; json: any }> {
  const before = sim.accounts.get(sim.apiKey)!.credits;
  const r = await post(sim, path, body);
  return { status: r.status, cost: before - sim.accounts.get(sim.apiKey)!.credits, json: r.json };
}

describe('product-in-hand', () => {
  it('routes carry the configured vendor names', async () => {
    expect((await post(sim, '/product-in-hand/vendorl-v2/generate', tts)).status).toBe(404);
  });

  it('v2: happy path through the shared status route to a real MP4, 100 credits', async () => {
    const r = await charged(V2, { ...tts, webhook_url: 'https://hooks.example.com/x' });
    expect(r).toMatchObject({ status: 200, cost: 100 });
    const done = await waitForJob(sim, '/product-in-hand/status', r.json.data.id);
    expect(done.status).toBe('completed');
    expect(isMp4(await fetchBytes(done.url))).toBe(true);
    expect(sim.ownedVideos.get(r.json.data.id)?.videoType).toBe('product-in-hand');
  });

  it('v2: voice_url replaces script and voice_id; at most 90 s', async () => {
    expect((await post(sim, V2, { image_url: PUBLIC_IMAGE, voice_url: `${PUBLIC_AUDIO}?duration=90` })).status).toBe(
      200,
    );
    const r = await post(sim, V2, { image_url: PUBLIC_IMAGE, voice_url: `${PUBLIC_AUDIO}?duration=91` });
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/^voice_url: .*90 seconds/);
  });

  it('script and voice_id are each required without voice_url', async () => {
    expect((await post(sim, V2, { image_url: PUBLIC_IMAGE, voice_id: 'voice_en_rachel' })).json.message).toMatch(
      /^script: is required/,
    );
    expect((await post(sim, HUMAN, { image_url: PUBLIC_IMAGE, script: 'Hi.' })).json.message).toMatch(
      /^voice_id: is required/,
    );
  });

  it('image_url is required and public; voice_id must exist', async () => {
    expect((await post(sim, V2, { ...tts, image_url: undefined })).json.message).toMatch(/^image_url: is required/);
    expect((await post(sim, V2, { ...tts, image_url: 'http://192.168.0.2/a.png' })).status).toBe(400);
    expect((await post(sim, V2, { ...tts, voice_id: 'nope' })).status).toBe(404);
  });

  it('project_id must be one of the account’s projects', async () => {
    const first = await post(sim, V2, tts);
    expect((await post(sim, V2, { ...tts, project_id: first.json.data.project_id })).status).toBe(200);
    expect((await post(sim, V2, { ...tts, project_id: 'proj_unknown' })).status).toBe(404);
  });

  it('human: 100 under 15 s, 200 for 15-30 s, 400 over 30 s', async () => {
    const voice = (s: number) => ({ image_url: PUBLIC_IMAGE, voice_url: `${PUBLIC_AUDIO}?duration=${s}` });
    expect(await charged(HUMAN, voice(14.9))).toMatchObject({ status: 200, cost: 100 });
    expect(await charged(HUMAN, voice(15))).toMatchObject({ status: 200, cost: 200 });
    expect(await charged(HUMAN, voice(30))).toMatchObject({ status: 200, cost: 200 });
    const over = await charged(HUMAN, voice(31));
    expect(over).toMatchObject({ status: 400, cost: 0 });
    expect(over.json.message).toMatch(/30 seconds/);
  });

  it('human: script length decides the price (2.5 words a second)', async () => {
    const words = (n: number) => Array.from({ length: n }, () => 'word').join(' ');
    expect(await charged(HUMAN, { ...tts, script: words(35) })).toMatchObject({ status: 200, cost: 100 });
    expect(await charged(HUMAN, { ...tts, script: words(40) })).toMatchObject({ status: 200, cost: 200 });
    expect(await charged(HUMAN, { ...tts, script: words(80) })).toMatchObject({ status: 400, cost: 0 });
  });

  it('scenes: scenes x 100 (fast, the default) or x 200 (pro)', async () => {
    expect(await charged(SCENES, { image_url: PUBLIC_IMAGE, scenes: [scene, scene] })).toMatchObject({
      status: 200,
      cost: 200,
    });
    expect(
      await charged(SCENES, { image_url: PUBLIC_IMAGE, scenes: [scene, scene, scene], model: 'pro' }),
    ).toMatchObject({ status: 200, cost: 600 });
    const r = await charged(SCENES, {
      image_url: PUBLIC_IMAGE,
      scenes: [scene],
      model: 'fast',
      voice_id: 'voice_fr_claire',
      end_image_url: PUBLIC_IMAGE,
    });
    expect(r.status).toBe(200);
    expect((await waitForJob(sim, '/product-in-hand/status', r.json.data.id)).status).toBe('completed');
  });

  it.each([
    [{ scenes: [] }, /^scenes: must have 1 to 4/],
    [{ scenes: [scene, scene, scene, scene, scene] }, /^scenes: must have 1 to 4/],
    [{ scenes: [{ script: 'x' }] }, /^scenes\[0\]\.description: /],
    [{ scenes: ['x'] }, /^scenes\[0\]: /],
    [{ scenes: undefined }, /^scenes: is required/],
    [{ scenes: [scene], model: 'ultra' }, /^model: must be one of pro, fast/],
    [{ scenes: [scene], end_image_url: 'http://localhost/x.png' }, /^end_image_url: /],
  ])('scenes route rejects %j', async (patch, message) => {
    const r = await charged(SCENES, { image_url: PUBLIC_IMAGE, ...patch });
    expect(r.status).toBe(400);
    expect(r.cost).toBe(0);
    expect(r.json.message).toMatch(message);
  });

  it('402 for insufficient credits; status 404 for unknown ids', async () => {
    sim.accounts.add({ key: 'sk-pih-poor', credits: 150 });
    expect(
      (await post(sim, SCENES, { image_url: PUBLIC_IMAGE, scenes: [scene, scene] }, { key: 'sk-pih-poor' })).status,
    ).toBe(402);
    expect((await get(sim, '/product-in-hand/status', { id: 'nope' })).status).toBe(404);
  });
});
