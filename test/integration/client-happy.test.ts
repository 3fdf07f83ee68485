/** Every endpoint through the real client against the simulator, each job polled to completion. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoStatus } from '../../src/client/schemas.js';
import { CANARY_KEY, PUBLIC_IMAGE, pollUntil, type Rig, startRig } from './client-helpers.js';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  await rig?.close();
});

const finished = (d: VideoStatus) => d.status === 'failed' || (d.status === 'completed' && Boolean(d.url));

describe('catalog reads', () => {
  it('lists avatars (filtered) and voices (filtered)', async () => {
    const avatars = await rig.client.avatars.list({ gender: 'female' });
    expect(avatars.data.length).toBeGreaterThan(0);
    expect(avatars.data.every((a) => a.gender === 'Female')).toBe(true);
    expect(avatars.requestId).toBeTruthy();
    const voices = await rig.client.voices.list({ language: 'Spanish' });
    expect(voices.data.map((v) => v.id)).toContain('voice_es_lucia');
  });

  it('lists templates, categories and shoppable packs', async () => {
    const templates = await rig.client.library.templates();
    expect(templates.data.length).toBeGreaterThan(0);
    expect(templates.data[0]?.require_fields).toBeTypeOf('object');
    const categories = await rig.client.library.categories();
    expect(categories.data.map((c) => c.value)).toContain('all');
    const packs = await rig.client.ads.packs();
    expect(packs.data).toHaveProperty('categories');
  });

  it('lists the enterprise catalog (flat body)', async () => {
    const models = await rig.client.enterprise.models();
    expect(models.data.some((m) => m.model === `${rig.sim.vendors.D}-imagine-image-edit`)).toBe(true);
  });
});

describe('jobs, submitted and polled to completion', () => {
  it('talking-actor video', async () => {
    const { data, requestId } = await rig.client.actors.generate({ avatar_id: 'av_ava', voice_script: 'Hello there' });
    expect(requestId).toBeTruthy();
    const done = await pollUntil(() => rig.client.actors.status(data.id), finished);
    expect(done).toMatchObject({ status: 'completed', url: expect.stringMatching(/^http/) });
  });

  it('custom avatar (multipart: a file part and a URL field), usable at once', async () => {
    const res = await rig.client.avatars.createCustom({
      image: { bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]), filename: 'me.png', contentType: 'image/png' },
      voice: { url: `${rig.sim.origin}/media/sample.mp3` },
    });
    expect(res.data.avatar_id).toBeTruthy();
    const entry = rig.sim.log.entries().find((e) => e.path === '/custom-avatar/generate');
    expect(entry?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(entry?.body).toMatchObject({ image: { filename: 'me.png', contentType: 'image/png', size: 7 } });
    const avatars = await rig.client.avatars.list();
    expect(avatars.data.map((a) => a.id)).toContain(res.data.avatar_id);
  });

  it.each([
    ['v2', { image_url: PUBLIC_IMAGE, script: 'Try this today', voice_id: 'voice_en_rachel' }],
    ['human', { image_url: PUBLIC_IMAGE, script: 'Try this today', voice_id: 'voice_en_rachel' }],
    ['scenes', { image_url: PUBLIC_IMAGE, model: 'fast', scenes: [{ script: 'Hi', description: 'close-up' }] }],
  ] as const)('product-in-hand (%s engine)', async (engine, body) => {
    const { data } = await rig.client.products.generate(engine, { ...body });
    const done = await pollUntil(() => rig.client.products.status(data.id), finished);
    expect(done.status).toBe('completed');
  });

  it('shoppable image and video', async () => {
    const img = await rig.client.ads.createImage({
      category: 'beauty',
      format: 'product_showcase',
      image_url: PUBLIC_IMAGE,
    });
    expect((await pollUntil(() => rig.client.ads.imageStatus(img.data.id), finished)).status).toBe('completed');
    const vid = await rig.client.ads.createVideo({
      category: 'beauty',
      format: 'product_showcase',
      image_urls: [PUBLIC_IMAGE],
      duration: '15',
    });
    expect((await pollUntil(() => rig.client.ads.videoStatus(vid.data.id), finished)).status).toBe('completed');
  });

  it('template video (tracked by db_id)', async () => {
    const { data } = await rig.client.library.generate({
      template_id: '6f1c2a9e-3b7d-4c1a-9e55-0a1b2c3d4e03',
      title: 'Launch night',
      details: 'Doors at 8',
    });
    const done = await pollUntil(() => rig.client.library.status(data.db_id), finished);
    expect(done.status).toBe('completed');
  });

  it('gesture', async () => {
    const { data } = await rig.client.gestures.generate({ prompt: 'wave hello', image_url: PUBLIC_IMAGE });
    const done = await pollUntil(
      () => rig.client.gestures.status(data.id),
      (d) => d.status === 'failed' || Boolean(d.video_url),
    );
    expect(done.video_url).toMatch(/^http/);
  });

  it('enterprise image model (integer states, output_link)', async () => {
    const model = `${rig.sim.vendors.D}-imagine-image-edit`;
    const { data } = await rig.client.enterprise.generate({
      model,
      params: { prompt: 'make it blue', image_urls: [PUBLIC_IMAGE] },
    });
    expect(data.request_id).toBeTruthy();
    const done = await pollUntil(
      () => rig.client.enterprise.status(data.request_id, 'image'),
      (d) => d.status === 2 || (d.status === 1 && (d.output?.output_link?.length ?? 0) > 0),
    );
    expect(done.output?.output_link?.[0]).toMatch(/^http/);
  });

  it('dedicated family video', async () => {
    const { data } = await rig.client.family.generate({ model: `${rig.sim.vendors.C}-2.5`, prompt: 'a fox at dawn' });
    expect(data.id).toBeTruthy();
    const done = await pollUntil(() => rig.client.family.status(data.id), finished);
    expect(done.status).toBe('completed');
  });

  it('upscale: quote, generate, status to a terminal state', async () => {
    const source = { video_id: 'vid_seed_ok', project_id: 'proj_seed_ok', video_type: 'video' };
    const body = { ...source, model_family: 'precision', model: 'precise-1', target_resolution: '1080p' };
    const quote = await rig.client.upscale.quote(body);
    expect(quote.data.quote.credits).toBeGreaterThan(0);
    const attempt = await rig.client.upscale.generate(body);
    expect(attempt.data.billing_id).toBeTruthy();
    const done = await pollUntil(
      () => rig.client.upscale.status({ ...source, billing_id: attempt.data.billing_id }),
      (d) => ['completed', 'refunded', 'failed'].includes(d.status),
    );
    expect(done.status).toBe('completed');
    expect(done.video_url).toMatch(/^http/);
  });
});

describe('the key on the wire', () => {
  it('travels only in X-Api-Key: never in a URL, the logged headers, or a client log line', () => {
    const entries = rig.sim.log.entries();
    expect(entries.length).toBeGreaterThan(10);
    for (const e of entries) {
      expect(e.headers['x-api-key-present']).toBe('yes');
      expect(JSON.stringify(e)).not.toContain(CANARY_KEY);
    }
    for (const line of rig.lines) expect(line).not.toContain(CANARY_KEY);
  });

  it('sends our X-Request-Id, which the simulator echoes back', async () => {
    const res = await rig.client.voices.list();
    const last = rig.sim.log.entries().at(-1);
    expect(last?.requestId).toBe(res.requestId);
    expect(last?.headers['x-request-id']).toBe(res.requestId);
  });
});
