import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fetchBytes,
  get,
  isMp4,
  PUBLIC_IMAGE,
  post,
  type Simulator,
  startSimulator,
  waitFor,
  waitForJob,
} from './helpers.js';

let sim: Simulator;
let receiver: Server;
let hookUrl: string;
const received: { path: string; contentType: string; body: any }[] = [];

beforeAll(async () => {
  sim = await startSimulator({ allowLoopbackWebhooks: true });
  receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => {
      text += c;
    });
    req.on('end', () => {
      received.push({ path: req.url ?? '', contentType: String(req.headers['content-type']), body: JSON.parse(text) });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sim.close();
  await new Promise((r) => receiver.close(r));
});

const SPOTLIGHT = '6f1c2a9e-3b7d-4c1a-9e55-0a1b2c3d4e01';
const spotlight = { template_id: SPOTLIGHT, product_name: 'Glow serum', product_image: PUBLIC_IMAGE };

describe('content library', () => {
  it('lists categories including all', async () => {
    const r = await get(sim, '/content-library/categories');
    expect(r.json.data).toContainEqual(expect.objectContaining({ label: 'All', value: 'all' }));
  });

  it('lists templates with require_fields of every type, with and without max', async () => {
    const all = (await get(sim, '/content-library/templates')).json.data;
    expect(all.length).toBeGreaterThanOrEqual(4);
    const fields = all.flatMap((t: any) => Object.values(t.require_fields)) as any[];
    for (const type of ['input', 'image', 'textarea']) {
      expect(fields.some((f) => f.type === type && f.max !== undefined) || type === 'image').toBe(true);
      expect(fields.some((f) => f.type === type && f.max === undefined)).toBe(true);
    }
    expect((await get(sim, '/content-library/templates', { category: 'all' })).json.data).toHaveLength(all.length);
  });

  it('filters templates by category; an unknown category is a 400', async () => {
    const events = (await get(sim, '/content-library/templates', { category: 'events' })).json.data;
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((t: any) => t.category.includes('events'))).toBe(true);
    expect((await get(sim, '/content-library/templates', { category: 'nope' })).status).toBe(400);
  });

  it('generates from a template, charges its credit, and completes with an MP4', async () => {
    const before = sim.accounts.get(sim.apiKey)!.credits;
    const r = await post(sim, '/content-library/generate', spotlight);
    expect(r.status).toBe(200);
    expect(r.json.data.db_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(sim.accounts.get(sim.apiKey)!.credits).toBe(before - 200);
    const done = await waitForJob(sim, '/content-library/status', r.json.data.db_id);
    expect(done).toMatchObject({ db_id: r.json.data.db_id, status: 'completed' });
    expect(isMp4(await fetchBytes(done.url))).toBe(true);
  });

  it('posts the terminal webhook once to a loopback receiver (tests only)', async () => {
    const r = await post(sim, '/content-library/generate', { ...spotlight, webhook_url: `${hookUrl}/done` });
    expect(r.status).toBe(200);
    const dbId = r.json.data.db_id;
    const hook = await waitFor(async () => received.find((h) => h.body.video_id === dbId), 'the webhook');
    expect(hook.path).toBe('/done');
    expect(hook.contentType).toMatch(/application\/json/);
    expect(hook.body).toMatchObject({
      event: 'video2video.job.terminal',
      video_id: dbId,
      status: 'completed',
      template_id: SPOTLIGHT,
      error: null,
    });
    expect(hook.body.job_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(hook.body.video_url).toMatch(/\.mp4$/);
    expect(hook.body.thumbnail_url).toMatch(/\.png$/);
    expect(hook.body.completed_at).toMatch(/^\d{4}-\d\d-\d\dT.*\+00:00$/);
    // Reading the status afterwards does not send it again.
    await waitForJob(sim, '/content-library/status', dbId);
    await get(sim, '/content-library/status', { id: dbId });
    expect(received.filter((h) => h.body.video_id === dbId)).toHaveLength(1);
  });

  it('reports a failure in the webhook and the status', async () => {
    sim.jobs.scriptNext({ outcome: { kind: 'fail', reason: 'template render failed' } });
    const r = await post(sim, '/content-library/generate', { ...spotlight, webhook_url: `${hookUrl}/fail` });
    const dbId = r.json.data.db_id;
    const hook = await waitFor(async () => received.find((h) => h.body.video_id === dbId), 'the failure webhook');
    expect(hook.body).toMatchObject({ status: 'failed', error: 'template render failed' });
    const s = await waitForJob(sim, '/content-library/status', dbId);
    expect(s).toMatchObject({ status: 'failed', reason: 'template render failed' });
  });

  it.each([
    [{ template_id: undefined }, 400, /^template_id: is required/],
    [{ template_id: 'spotlight' }, 400, /^template_id: must be a UUID/],
    [{ template_id: '00000000-0000-4000-8000-000000000000' }, 404, /template not found/],
    [{ product_name: undefined }, 400, /^product_name: is required/],
    [{ product_name: 'x'.repeat(41) }, 400, /^product_name: must be at most 40/],
    [{ product_image: 'http://172.16.0.1/a.png' }, 400, /^product_image: must be a public/],
    [{ product_image: 'data:image/png;base64,AAAA' }, 400, /^product_image: /],
    [{ product_image: { filename: 'a.png' } }, 400, /^product_image: must be a string/],
    [{ webhook_url: 'http://hooks.example.com/x' }, 400, /^webhook_url: must be a public HTTPS/],
    [{ project_id: 'proj_not_mine' }, 404, /project not found/],
  ])('generate rejects %j', async (patch, status, message) => {
    const before = sim.accounts.get(sim.apiKey)!.credits;
    const r = await post(sim, '/content-library/generate', { ...spotlight, ...patch });
    expect(r.status).toBe(status);
    expect(r.json.message).toMatch(message);
    expect(sim.accounts.get(sim.apiKey)!.credits).toBe(before);
  });

  it('textarea max applies; a textarea without max takes long text', async () => {
    const ok = await post(sim, '/content-library/generate', {
      template_id: '6f1c2a9e-3b7d-4c1a-9e55-0a1b2c3d4e03',
      title: 'Launch',
      details: 'd'.repeat(5000),
    });
    expect(ok.status).toBe(200);
    const bad = await post(sim, '/content-library/generate', {
      template_id: '6f1c2a9e-3b7d-4c1a-9e55-0a1b2c3d4e02',
      headline: 'Wow',
      story: 's'.repeat(501),
      portrait: PUBLIC_IMAGE,
    });
    expect(bad.json.message).toMatch(/^story: must be at most 500/);
  });

  it('refuses file uploads', async () => {
    const fd = new FormData();
    fd.append('template_id', SPOTLIGHT);
    fd.append('product_image', new Blob([new Uint8Array(4)], { type: 'image/png' }), 'a.png');
    const res = await fetch(`${sim.baseUrl}/content-library/generate`, {
      method: 'POST',
      headers: { 'x-api-key': sim.apiKey },
      body: fd,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).message).toMatch(/file uploads are not accepted/);
  });

  it('a public webhook_url is refused without https, loopback only with the test option', async () => {
    const strict = await startSimulator();
    try {
      const r = await post(strict, '/content-library/generate', { ...spotlight, webhook_url: `${hookUrl}/x` });
      expect(r.status).toBe(400);
      expect(r.json.message).toMatch(/^webhook_url: /);
      const ok = await post(strict, '/content-library/generate', {
        ...spotlight,
        webhook_url: 'https://hooks.example.com/x',
      });
      expect(ok.status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});
