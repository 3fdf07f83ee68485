import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fetchBytes,
  get,
  isMp4,
  isPng,
  PUBLIC_IMAGE,
  post,
  type Simulator,
  startSimulator,
  waitForJob,
} from './helpers.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());

const image = { category: 'beauty', format: 'before_after', image_url: PUBLIC_IMAGE };
const video = { category: 'beauty', format: 'lifestyle', image_urls: [PUBLIC_IMAGE], duration: '15' };

describe('shoppable ads', () => {
  it('lists packs with formats, durations, credits and defaults', async () => {
    const r = await get(sim, '/shopable/packs');
    expect(r.status).toBe(200);
    const cats = r.json.data.categories;
    expect(cats.length).toBeGreaterThanOrEqual(2);
    for (const c of cats) {
      expect(c).toMatchObject({ value: expect.any(String), label: expect.any(String) });
      expect(c.formats.length).toBeGreaterThan(0);
      expect(c.durations.every((d: unknown) => typeof d === 'string')).toBe(true);
      expect(c.formats).toContain(c.defaults.format);
      expect(c.durations).toContain(c.defaults.duration);
    }
  });

  it('image: happy path to a PNG, charging the pack price', async () => {
    const before = sim.accounts.get(sim.apiKey)!.credits;
    const r = await post(sim, '/shopable/images', { ...image, context: 'bright bathroom', aspect_ratio: '1:1' });
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({ id: expect.any(String), status: 'processing', credits_charged: 100 });
    expect(sim.accounts.get(sim.apiKey)!.credits).toBe(before - 100);
    const done = await waitForJob(sim, '/shopable/images/status', r.json.data.id);
    expect(done.status).toBe('completed');
    expect(isPng(await fetchBytes(done.url))).toBe(true);
  });

  it('video: happy path to an MP4 on its own status route', async () => {
    const r = await post(sim, '/shopable/videos', video);
    expect(r.status).toBe(200);
    expect(r.json.data.credits_charged).toBe(300);
    const done = await waitForJob(sim, '/shopable/videos/status', r.json.data.id);
    expect(isMp4(await fetchBytes(done.url))).toBe(true);
    expect(sim.ownedVideos.get(r.json.data.id)?.videoType).toBe('template_ads');
    // Status routes are per kind: an image id is not a video id.
    expect((await get(sim, '/shopable/images/status', { id: r.json.data.id })).status).toBe(404);
  });

  it.each([
    ['/shopable/images', { ...image, category: 'cars' }, /^category: unknown/],
    ['/shopable/images', { ...image, category: undefined }, /^category: is required/],
    ['/shopable/images', { ...image, format: 'unboxing' }, /^format: must be one of/],
    ['/shopable/images', { ...image, image_url: 'http://10.0.0.1/a.png' }, /^image_url: /],
    ['/shopable/images', { ...image, aspect_ratio: '21:9' }, /^aspect_ratio: /],
    ['/shopable/videos', { ...video, duration: 15 }, /^duration: must be a string/],
    ['/shopable/videos', { ...video, duration: '12' }, /^duration: must be one of/],
    ['/shopable/videos', { ...video, duration: undefined }, /^duration: is required/],
    ['/shopable/videos', { ...video, image_urls: [] }, /^image_urls: /],
    ['/shopable/videos', { ...video, image_urls: undefined, image_url: PUBLIC_IMAGE }, /^image_urls: is required/],
    ['/shopable/videos', { ...video, image_urls: [PUBLIC_IMAGE, 'http://localhost/x.png'] }, /^image_urls\[1\]: /],
  ])('%s rejects %j', async (path, body, message) => {
    const before = sim.accounts.get(sim.apiKey)!.credits;
    const r = await post(sim, path, body);
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(message);
    expect(sim.accounts.get(sim.apiKey)!.credits).toBe(before);
  });

  it('402 for insufficient credits', async () => {
    sim.accounts.add({ key: 'sk-shop-poor', credits: 299 });
    expect((await post(sim, '/shopable/videos', video, { key: 'sk-shop-poor' })).status).toBe(402);
  });
});
