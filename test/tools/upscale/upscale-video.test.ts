import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../../src/define-tool.js';
import getJob from '../../../tools/jobs/get-job.js';
import waitForJobs from '../../../tools/jobs/wait-for-jobs.js';
import createProductVideo from '../../../tools/product/create-product-video.js';
import upscaleVideo from '../../../tools/upscale/upscale-video.js';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

const TOOL = 'upscale_video';
const TOOLS = [upscaleVideo, createProductVideo, waitForJobs, getJob] as unknown as ToolSpec[];
const GENERATES = { method: 'POST', path: '/upscale/generate' } as const;
const QUOTES = { method: 'POST', path: '/upscale/quote' } as const;
const SEED = {
  video_id: 'vid_seed_ok',
  project_id: 'proj_seed_ok',
  video_type: 'video',
  model_family: 'precision',
  model: 'precise-1',
  target_resolution: '1080p',
};

type Job = {
  status: string;
  handle: string;
  outputs: { url: string; media: string }[];
  reason?: string;
  details?: Record<string, unknown>;
};

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tools: TOOLS });
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

async function waitOne(handle: string): Promise<Job> {
  const w = await h.call('wait_for_jobs', { handles: [handle], max_wait_s: 20 });
  return (structured(w).jobs as Job[])[0]!;
}

/** A finished product video: the sandbox registers it as an owned video (1080x1920, 20 s, product-in-hand). */
async function ownedVideo() {
  const voice_id = h.sim.data.voices[0]!.id;
  const s = structured(
    await h.call('create_product_video', {
      engine: 'v2',
      image_url: 'https://cdn.example.com/p.png',
      script: 'Hi.',
      voice_id,
    }),
  );
  const job = await waitOne(s.handle!);
  expect(job.status).toBe('completed');
  const remote = s.remote as { id: string; project_id: string };
  h.sim.log.clear();
  return {
    args: { ...SEED, video_id: remote.id, project_id: remote.project_id, video_type: 'product-in-hand' },
    url: job.outputs[0]!.url,
  };
}

describe('upscale_video', () => {
  it('is listed as billable with a short description', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === TOOL)!;
    expect(t.description!.length).toBeLessThan(300);
    expect(t.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false, openWorldHint: true });
  });

  it('happy path: priced by a fresh quote, submitted with the upscale handle, then completed', async () => {
    const r = await h.call(TOOL, SEED);
    expect(r.isError).toBeFalsy();
    const s = structured(r);
    expect(s).toMatchObject({
      status: 'submitted',
      kind: 'upscale',
      // The spec calls the quote informational: unbounded, at the per-call ceiling, naming the platform's figure.
      estimate: { bounded: false, basis: expect.stringMatching(/upscale quote of 45 credits is informational/) },
    });
    const remote = s.remote as { id: string; project_id: string; billing_id: string };
    expect(remote).toMatchObject({ id: 'vid_seed_ok', project_id: 'proj_seed_ok' });
    expect(s.handle).toBe(`upscale:video:proj_seed_ok:vid_seed_ok:${remote.billing_id}`);
    // Made elsewhere: this server cannot know the URL that the upscale replaces, and says so.
    expect((s.details as Record<string, string>).original_url_note).toMatch(/not saved/);
    // Two quotes: the first call (unbounded, so the harness confirms with the token) and the confirmed one.
    expect(h.sim.log.count(QUOTES)).toBe(2);
    expect(h.sim.log.count(GENERATES)).toBe(1);
    // Strict platform body: exactly the six fields.
    const post = h.sim.log.entries().find((e) => e.path === GENERATES.path)!;
    expect(post.body).toEqual(SEED);

    const job = await waitOne(s.handle!);
    expect(job.status).toBe('completed');
    expect(job.outputs[0]?.url).toMatch(/^http/);
    const viaGet = structured(await h.call('get_job', { handle: s.handle }));
    expect(viaGet).toMatchObject({ status: 'completed', outputs: job.outputs });
  });

  it('saves the original URL of a video this server made, before the upscale replaces it', async () => {
    const { args, url } = await ownedVideo();
    const s = structured(await h.call(TOOL, { ...args, target_resolution: '2160p' }));
    expect(s.status).toBe('submitted');
    expect(s.details).toMatchObject({ original_url: url });
    expect(await h.jobs.get(s.handle!)).toMatchObject({ originalUrl: url });
    const job = await waitOne(s.handle!);
    expect(job.status).toBe('completed');
    expect(job.outputs[0]!.url).not.toBe(url);
    expect(job.details).toMatchObject({ original_url: url });
  });

  it('refuses a second attempt while one is active, with no quote or generate sent', async () => {
    const { args } = await ownedVideo();
    // Keeps the first attempt running for the rest of the test (no clock is involved in the assertion).
    h.sim.jobs.scriptNext({ durationMs: 10 * 60_000 });
    const first = structured(await h.call(TOOL, args));
    expect(first.status).toBe('submitted');
    h.sim.log.clear();

    const r = await h.call(TOOL, { ...args, target_resolution: '1440p' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/"video_id": an upscale attempt for this video is still active/);
    expect(text(r)).toContain(first.handle!);
    expect(text(r)).toMatch(/not idempotent/);
    expect(h.sim.log.count(GENERATES)).toBe(0);
    expect(h.sim.log.count(QUOTES)).toBe(0);
  });

  it('does not refuse over a stale ledger record: the attempt is re-read first', async () => {
    const { args } = await ownedVideo();
    h.sim.jobs.scriptNext({ durationMs: 0 });
    const first = structured(await h.call(TOOL, { ...args, target_resolution: '1440p' }));
    expect(first.status).toBe('submitted');
    expect((await h.jobs.get(first.handle!))?.status).toBe('processing');

    const r = await h.call(TOOL, { ...args, target_resolution: '2160p' });
    expect(r.isError).toBeFalsy();
    expect(structured(r).status).toBe('submitted');
    expect(h.sim.log.count(GENERATES)).toBe(2);
  });

  it('an attempt of unknown outcome blocks another for the same video', async () => {
    const { args } = await ownedVideo();
    h.sim.faults.add({ method: 'POST', path: '/upscale/generate', kind: 'server_error_after_accept' });
    const first = structured(await h.call(TOOL, args));
    expect(first.status).toBe('unknown');
    h.sim.log.clear();
    const r = await h.call(TOOL, { ...args, model_family: 'generative' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/still active \(handle submission:/);
    expect(h.sim.log.count(GENERATES)).toBe(0);
  });

  const platformRejects: [string, string, string, RegExp][] = [
    ['a source over 300 s', 'vid_seed_long', 'proj_seed_long', /300 s/],
    ['a source over 60 fps', 'vid_seed_fps', 'proj_seed_fps', /60 fps/],
  ];
  for (const [name, video_id, project_id, msg] of platformRejects) {
    it(`stops at the quote's 400 for ${name}: no generate`, async () => {
      const r = await h.call(TOOL, { ...SEED, video_id, project_id });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(msg);
      expect(h.sim.log.count(QUOTES)).toBe(1);
      expect(h.sim.log.count(GENERATES)).toBe(0);
    });
  }

  const rejected: [string, Record<string, unknown>, RegExp][] = [
    ['an unknown video_type', { ...SEED, video_type: 'clip' }, /video_type/],
    ['a bad target_resolution', { ...SEED, target_resolution: '8k' }, /target_resolution/],
    ['webhook_url', { ...SEED, webhook_url: 'https://hooks.example.com/x' }, /webhook_url|unrecognized/i],
    ['user_id', { ...SEED, user_id: 'u1' }, /user_id|unrecognized/i],
  ];
  for (const [name, args, field] of rejected) {
    it(`rejects ${name} before any request`, async () => {
      const r = await h.call(TOOL, args);
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(field);
      expect(h.sim.log.count(QUOTES)).toBe(0);
      expect(h.sim.log.count(GENERATES)).toBe(0);
    });
  }

  it('token flow: the quote is shown first, the attempt starts only with the token', async () => {
    const c = await startHarness({ sim: h.sim, tools: TOOLS, config: { confirm: { mode: 'always' } } });
    try {
      h.sim.log.clear();
      const first = structured(await c.call(TOOL, SEED));
      expect(first).toMatchObject({
        status: 'confirmation_required',
        estimate: { basis: expect.stringMatching(/quote/) },
      });
      expect(h.sim.log.count(GENERATES)).toBe(0);
      const second = structured(await c.call(TOOL, { ...SEED, confirmation_token: first.confirmation_token }));
      expect(second).toMatchObject({ status: 'submitted', estimate: first.estimate });
      expect(h.sim.log.count(GENERATES)).toBe(1);
    } finally {
      await c.close();
    }
  });
});
