/**
 * Enterprise routes over HTTP against the real simulator: catalog, a happy path per model shape, the
 * endpoint-level rules, integer and string states, "completed without output yet", and account isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/sim/index.js';
import { BARE_MODELS, WORDING_MODELS } from '../../src/sim/models/wordings.js';
import { call as simCall } from './helpers.js';

type Sim = Awaited<ReturnType<typeof startSimulator>>;
let sim: Sim;
const IMG = 'https://cdn.example.com/a.png';
const VID = 'https://cdn.example.com/a.mp4';

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

const gen = (model: string, params: Record<string, unknown>, extra: Record<string, unknown> = {}, key?: string) =>
  call('POST', '/enterprise/generate', { model, params, ...extra }, key);
const status = (id: string, media?: string, key?: string) =>
  call('GET', `/enterprise/status/${id}${media ? `?media=${media}` : ''}`, undefined, key);

/** Polls until the status is terminal (1 with output, or 2); generous deadline, no timing assertion. */
async function settle(id: string, key?: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await status(id, undefined, key);
    expect(r.status).toBe(200);
    const s = r.body.status;
    const hasOutput = r.body.video_url || r.body.output?.output_link?.length;
    if (s === 2 || s === 'failed' || ((s === 1 || s === 'completed') && hasOutput)) return r.body;
    if (Date.now() > deadline) throw new Error(`job ${id} did not settle: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 10));
  }
}

/** One valid request per model shape (default sandbox vendor names). */
const HAPPY: [string, Record<string, unknown>, number][] = [
  ['gpt-image-2.5-flare-edit', { prompt: 'x', image_urls: [IMG], size: '1024x640', output_format: 'webp' }, 1],
  ['gpt-image-2.5-sunburst-edit', { prompt: 'x', image_urls: [IMG] }, 1],
  ['vendorh-omni-flash-1-1-i2v', { prompt: 'x', image_url: 'data:image/png;base64,iVBORw0KGgo=' }, 1],
  ['nano-banana-edit', { prompt: 'x', image_urls: [IMG], num_images: 2 }, 2],
  ['grok-imagine-image-edit', { prompt: 'x', image_urls: [IMG, IMG] }, 1],
  ['vendorj-broll', { prompt: 'x', image_url: IMG }, 1],
  ['seedance-1-5-pro', { prompt: 'x', duration: 12 }, 1],
  ['grok-imagine-video-1-5-r2v', { prompt: '<IMAGE_0> runs', reference_image_urls: [IMG], duration: 6 }, 1],
  ['ideogram-v3-edit', { prompt: 'x', image_url: IMG, image_size: { width: 512, height: 512 } }, 1],
  ['seedance-2-0-i2v', { prompt: 'x', image_url: IMG, duration: '5' }, 1],
  ['wan-v2.6-edit', { prompt: 'x', image_urls: [IMG], max_images: 2 }, 2],
  ['vendore-h3-max-3d-to-video', { video_url: VID }, 1],
  ['grok-video-t2v', { prompt: 'x', duration: 15 }, 1],
  ['flux-2-pro', { prompt: 'x' }, 1],
  ['imagen-4', { prompt: 'x' }, 1],
  ['seedream-4', { prompt: 'x' }, 1],
  ['ideogram-v3', { prompt: 'x' }, 1],
  ['seedream-4-edit', { prompt: 'x', image_urls: [IMG] }, 1],
  ['flux-2-pro-edit', { prompt: 'x', image_urls: [IMG] }, 1],
  ['ideogram-v3', { prompt: 'x', num_images: 3 }, 3],
  ['lumen-1', { prompt: 'x', n: 2, batch_size: 2 }, 4],
  ...WORDING_MODELS.map((m): [string, Record<string, unknown>, number] => [m.model, { prompt: 'x' }, 1]),
  ...BARE_MODELS.map((m): [string, Record<string, unknown>, number] => [m.model, { prompt: 'x' }, 1]),
];

describe('GET /enterprise/models', () => {
  it('returns the flat catalog with vendor names resolved and no family ids', async () => {
    const r = await call('GET', '/enterprise/models');
    expect(r.status).toBe(200);
    const models = r.body.models as { model: string; media: string; credits: string }[];
    expect(models.map((m) => m.model).sort()).toEqual([...new Set(HAPPY.map(([m]) => m))].sort());
    for (const m of models) {
      expect(['image', 'video']).toContain(m.media);
      // A unit word, or a bare figure (API units, as the spec writes enterprise prices).
      expect(m.credits).toMatch(/\d+ credits|\d api (credit )?units|^[\d.]+( (per|for) |$)/i);
    }
    expect(models.find((m) => m.model === 'grok-imagine-image-edit')?.credits).toBe('10 credits per generation');
    expect(models.some((m) => m.model.startsWith('seedance-2.'))).toBe(false);
  });

  it('follows GENPLAT_VENDORS-style overrides', async () => {
    const other = await startSimulator({ timing: 'test', vendors: { G: 'acme' } });
    try {
      const res = await fetch(`${other.baseUrl}/enterprise/models`, { headers: { 'x-api-key': other.apiKey } });
      const body = (await res.json()) as { models: { model: string }[] };
      expect(body.models.map((m) => m.model)).toContain('acme-image-2.5-flare-edit');
    } finally {
      await other.close();
    }
  });
});

describe('POST /enterprise/generate happy paths', () => {
  it.each(HAPPY)('%s runs to a completed job with fetchable output', async (model, params, count) => {
    const r = await gen(model, params);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ model, status: 'queued' });
    expect(typeof r.body.request_id).toBe('string');
    expect(typeof r.body.project_id).toBe('string');
    expect(typeof r.body.message).toBe('string');
    const done = await settle(r.body.request_id);
    expect(done.request_id).toBe(r.body.request_id);
    expect(done.media).toBe(r.body.media);
    expect(done.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(done.updated_at).toMatch(/Z$/);
    const urls: string[] = done.media === 'image' ? done.output.output_link : [done.video_url];
    if (done.media === 'image') {
      expect(done.status).toBe(1);
      expect(done.mode).toBe(model);
      expect(done.project_id).toBe(r.body.project_id);
    }
    expect(urls).toHaveLength(count);
    for (const url of urls) {
      const media = await fetch(url);
      expect(media.status).toBe(200);
      expect(media.headers.get('content-type')).toBe(done.media === 'image' ? 'image/png' : 'video/mp4');
    }
  });

  it('charges the model price times the output count', async () => {
    const acct = sim.accounts.add({ key: 'charge-check', credits: 1000 });
    const r = await gen(
      'nano-banana-edit',
      { prompt: 'x', image_urls: [IMG], num_images: 3, resolution: '2K' },
      {},
      'charge-check',
    );
    expect(r.status).toBe(200);
    expect(acct.credits).toBe(1000 - 60);
  });

  it('answers 402 when the balance does not cover the price, and charges nothing', async () => {
    const acct = sim.accounts.add({ key: 'poor', credits: 30 });
    const r = await gen('vendorj-broll', { prompt: 'x', image_url: IMG }, {}, 'poor');
    expect(r.status).toBe(402);
    expect(acct.credits).toBe(30);
  });

  it('reuses a given project_id and refuses an unknown one', async () => {
    const a = await gen('flux-2-pro', { prompt: 'x' });
    const b = await gen('flux-2-pro', { prompt: 'y' }, { project_id: a.body.project_id });
    expect(b.status).toBe(200);
    expect(b.body.project_id).toBe(a.body.project_id);
    const c = await gen('flux-2-pro', { prompt: 'y' }, { project_id: 'proj_nope' });
    expect(c.status).toBe(404);
  });
});

describe('POST /enterprise/generate rejections', () => {
  /** Rejected requests start nothing: the balance of a dedicated account stays untouched. */
  const rejects = async (body: unknown, status: number, message: RegExp) => {
    const acct = sim.accounts.add({ key: 'rejections', credits: 10_000 });
    const r = await call('POST', '/enterprise/generate', body, 'rejections');
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(JSON.stringify(r.body)).toMatch(message);
    expect(acct.credits).toBe(10_000);
  };

  it('rejects an unknown model and points dedicated-family ids elsewhere', async () => {
    await rejects({ model: 'nope', params: { prompt: 'x' } }, 400, /model: unknown model/);
    await rejects({ model: 'seedance-2.5', params: { prompt: 'x' } }, 400, /seedance\/generate/);
  });

  it('keeps model inputs inside params', async () => {
    await rejects({ model: 'flux-2-pro', prompt: 'x', params: {} }, 400, /prompt: model inputs go inside params/);
    await rejects({ model: 'flux-2-pro' }, 400, /params: is required/);
    await rejects({ model: 'flux-2-pro', params: ['x'] }, 400, /params: must be an object/);
  });

  it('rejects an unknown param on a strict model, naming it', async () => {
    await rejects(
      { model: 'gpt-image-2.5-flare-edit', params: { prompt: 'x', image_urls: [IMG], n: 2 } },
      400,
      /n: unknown parameter/,
    );
    await rejects({ model: 'vendorj-broll', params: { prompt: 'x', image_url: IMG, duration: 8 } }, 400, /duration/);
  });

  it('enforces per-model rules over HTTP', async () => {
    await rejects(
      { model: 'gpt-image-2.5-flare-edit', params: { prompt: 'x', image_urls: [IMG], size: '4000x1000' } },
      400,
      /size:/,
    );
    await rejects(
      {
        model: 'gpt-image-2.5-flare-edit',
        params: { prompt: 'x', image_urls: [IMG], background: 'transparent', output_format: 'jpeg' },
      },
      400,
      /background: transparent requires/,
    );
    await rejects(
      { model: 'grok-imagine-video-1-5-r2v', params: { prompt: 'x', reference_image_urls: [IMG], duration: 5.5 } },
      400,
      /duration: must be an integer/,
    );
  });

  it('allows data URIs only where the model does', async () => {
    const data = 'data:image/png;base64,iVBORw0KGgo=';
    await rejects({ model: 'nano-banana-edit', params: { prompt: 'x', image_urls: [data] } }, 400, /image_urls\[0\]/);
    const ok = await gen('vendorh-omni-flash-1-1-i2v', { prompt: 'x', image_url: data, end_image_url: data });
    expect(ok.status).toBe(200);
  });

  it('rejects webhook_url on polling-only models and checks it elsewhere', async () => {
    for (const [model, params] of HAPPY.filter(([m]) =>
      ['gpt-image-2.5-flare-edit', 'nano-banana-edit', 'vendorj-broll', 'seedance-1-5-pro'].includes(m),
    )) {
      await rejects({ model, params, webhook_url: 'https://hooks.example.com/x' }, 400, /webhook_url: .*polling-only/);
    }
    const ok = await gen(
      'grok-imagine-image-edit',
      { prompt: 'x', image_urls: [IMG] },
      {
        webhook_url: 'https://hooks.example.com/x',
      },
    );
    expect(ok.status).toBe(200);
    await rejects(
      {
        model: 'grok-imagine-image-edit',
        params: { prompt: 'x', image_urls: [IMG] },
        webhook_url: 'https://10.0.0.1/x',
      },
      400,
      /webhook_url/,
    );
    await rejects(
      { model: 'grok-imagine-image-edit', params: { prompt: 'x', image_urls: [IMG] }, webhook_url: 'not a url' },
      400,
      /webhook_url/,
    );
  });

  it('rejects user_id anywhere', async () => {
    await rejects({ model: 'flux-2-pro', params: { prompt: 'x', user_id: 'u' } }, 400, /user_id/);
    await rejects({ model: 'flux-2-pro', params: { prompt: 'x' }, user_id: 'u' }, 400, /user_id/);
  });
});

describe('GET /enterprise/status', () => {
  it('reports 0 while processing', async () => {
    sim.jobs.scriptNext({ durationMs: 60_000 });
    const r = await gen('imagen-4', { prompt: 'x' });
    const s = await status(r.body.request_id, 'image');
    expect(s.body).toMatchObject({ status: 0, media: 'image', mode: 'imagen-4', output: { output_link: [] } });
  });

  it('reports 1 without output for outputLagPolls reads, then the output', async () => {
    sim.jobs.scriptNext({ outputLagPolls: 2 });
    const r = await gen('imagen-4', { prompt: 'x' });
    const seen: number[] = [];
    const deadline = Date.now() + 10_000;
    while (seen.length < 3 && Date.now() < deadline) {
      const s = await status(r.body.request_id);
      if (s.body.status === 1) seen.push(s.body.output.output_link.length);
      else await new Promise((res) => setTimeout(res, 10));
    }
    expect(seen).toEqual([0, 0, 1]);
  });

  it('lags video output too (no video_url while status is 1)', async () => {
    sim.jobs.scriptNext({ outputLagPolls: 1 });
    const r = await gen('grok-video-t2v', { prompt: 'x' });
    let first: Record<string, unknown> | undefined;
    const deadline = Date.now() + 10_000;
    while (!first && Date.now() < deadline) {
      const s = await status(r.body.request_id, 'video');
      if (s.body.status === 1) first = s.body;
      else await new Promise((res) => setTimeout(res, 10));
    }
    expect(first?.video_url).toBeUndefined();
    const next = await status(r.body.request_id, 'video');
    expect(next.body).toMatchObject({ status: 1, video_url: expect.stringMatching(/^http/) });
  });

  it('uses string states for seedance-2-0-i2v', async () => {
    sim.jobs.scriptNext({ durationMs: 60_000 });
    const slow = await gen('seedance-2-0-i2v', { prompt: 'x', image_url: IMG });
    expect((await status(slow.body.request_id)).body.status).toBe('processing');
    const r = await gen('seedance-2-0-i2v', { prompt: 'x', image_url: IMG });
    const done = await settle(r.body.request_id);
    expect(done.status).toBe('completed');
    sim.jobs.scriptNext({ outcome: { kind: 'fail', reason: 'provider error' } });
    const bad = await gen('seedance-2-0-i2v', { prompt: 'x', image_url: IMG });
    expect(await settle(bad.body.request_id)).toMatchObject({ status: 'failed', error: 'provider error' });
  });

  it('reports 2 with the reason for a failed job', async () => {
    sim.jobs.scriptNext({ outcome: { kind: 'fail', reason: 'content policy' } });
    const r = await gen('flux-2-pro', { prompt: 'x' });
    const done = await settle(r.body.request_id);
    expect(done).toMatchObject({ status: 2, error: 'content policy', output: { output_link: [] } });
    sim.jobs.scriptNext({ outcome: { kind: 'fail', reason: 'no frames' } });
    const v = await gen('grok-video-t2v', { prompt: 'x' });
    const vdone = await settle(v.body.request_id);
    expect(vdone).toMatchObject({ status: 2, error: 'no frames' });
    expect(vdone.video_url).toBeUndefined();
  });

  it('answers 404 for another account, a wrong media and an unknown id', async () => {
    sim.accounts.add({ key: 'someone-else' });
    const r = await gen('flux-2-pro', { prompt: 'x' });
    expect((await status(r.body.request_id, undefined, 'someone-else')).status).toBe(404);
    expect((await status(r.body.request_id, 'video')).status).toBe(404);
    expect((await status(r.body.request_id, 'image')).status).toBe(200);
    expect((await status('nope')).status).toBe(404);
    expect((await status(r.body.request_id, 'audio')).status).toBe(400);
  });
});
