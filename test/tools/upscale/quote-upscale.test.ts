import type { Progress } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../../src/define-tool.js';
import quoteUpscale from '../../../tools/upscale/quote-upscale.js';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

const TOOL = 'quote_upscale';
const QUOTES = { method: 'POST', path: '/upscale/quote' } as const;
const OK = {
  video_id: 'vid_seed_ok',
  project_id: 'proj_seed_ok',
  video_type: 'video',
  model_family: 'precision',
  model: 'precise-1',
  target_resolution: '1080p',
};

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tools: [quoteUpscale] as unknown as ToolSpec[] });
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

describe('quote_upscale', () => {
  it('is a read tool: read-only, idempotent, open-world, says it is slow', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === TOOL)!;
    expect(t.description!.length).toBeLessThan(300);
    expect(t.description).toMatch(/slow/i);
    expect(t.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: true });
    expect(Object.keys(t.inputSchema.properties ?? {})).not.toContain('confirmation_token');
  });

  it('quotes an owned video with its probed metadata and reports progress', async () => {
    const progress: Progress[] = [];
    const r = await h.call(TOOL, OK, { onprogress: (p) => progress.push(p) });
    expect(r.isError).toBeFalsy();
    // 720x1280, 30 s at 30 fps, to 1080p: factor 1.5; the sandbox prices precision at 1 credit/s × factor.
    expect(structured(r)).toMatchObject({
      credits: 45,
      api_units: 0.45,
      upscale_factor: 1.5,
      metadata: { width: 720, height: 1280, duration: 30, fps: 30, frames: 900 },
    });
    expect(String(structured(r).next_step)).toContain('upscale_video');
    expect(h.sim.log.count(QUOTES)).toBe(1);
    expect(h.sim.log.entries()[0]!.body).toEqual(OK);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]!.message).toMatch(/probing/);
  });

  it('accepts a vendor-named video_type resolved from the config', async () => {
    const r = await h.call(TOOL, { ...OK, video_type: `${h.sim.vendors.C}_25_video` });
    // Locally valid, so it reaches the platform, which has no such video of that type.
    expect(h.sim.log.count(QUOTES)).toBe(1);
    expect(text(r)).not.toMatch(/must be one of/);
    expect(text(r)).toMatch(/404|not found/i);
  });

  const platformRejects: [string, string, string, RegExp][] = [
    ['a source over 300 s', 'vid_seed_long', 'proj_seed_long', /300 s/],
    ['a source over 60 fps', 'vid_seed_fps', 'proj_seed_fps', /60 fps/],
    ['a geometry with no valid factor', 'vid_seed_4k', 'proj_seed_4k', /geometry/],
  ];
  for (const [name, video_id, project_id, msg] of platformRejects) {
    it(`reports the platform's 400 for ${name}`, async () => {
      const r = await h.call(TOOL, { ...OK, video_id, project_id });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(msg);
      expect(h.sim.log.count(QUOTES)).toBe(1);
    });
  }

  const rejected: [string, Record<string, unknown>, RegExp][] = [
    ['an unknown video_type', { ...OK, video_type: 'movie' }, /"video_type": must be one of video, product-in-hand/],
    ['a bad model_family', { ...OK, model_family: 'fast' }, /model_family/],
    ['a bad target_resolution', { ...OK, target_resolution: '4k' }, /target_resolution/],
    ['a video_id over 256 characters', { ...OK, video_id: 'v'.repeat(257) }, /video_id/],
    ['an empty model', { ...OK, model: '' }, /model/],
    ['a missing project_id', { ...OK, project_id: undefined }, /project_id/],
    [
      'webhook_url (the platform sends none)',
      { ...OK, webhook_url: 'https://hooks.example.com/x' },
      /webhook_url|unrecognized/i,
    ],
    ['user_id', { ...OK, user_id: 'u1' }, /user_id|unrecognized/i],
  ];
  for (const [name, args, field] of rejected) {
    it(`rejects ${name} before any request`, async () => {
      const r = await h.call(TOOL, args);
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(field);
      expect(h.sim.log.count(QUOTES)).toBe(0);
    });
  }

  it('names GENPLAT_VENDORS when a vendor-named type needs an unset letter', async () => {
    const { F: _unset, ...vendors } = h.sim.vendors;
    const c = await startHarness({ sim: h.sim, tools: [quoteUpscale] as unknown as ToolSpec[], config: { vendors } });
    try {
      const r = await c.call(TOOL, { ...OK, video_type: `${h.sim.vendors.F}3_extend` });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/video_type[\s\S]*GENPLAT_VENDORS sets F/);
      expect(h.sim.log.count(QUOTES)).toBe(0);
    } finally {
      await c.close();
    }
  });
});
