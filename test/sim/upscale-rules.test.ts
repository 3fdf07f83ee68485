/** Upscale body strictness, source limits, geometry and the sandbox price table, as pure functions. */
import { describe, expect, it } from 'vitest';
import { sandboxVendors } from '../../src/config.js';
import { planUpscale, upscaleVideoTypes, validateUpscaleBody } from '../../src/sim/models/upscale.js';
import { type OwnedVideo, SimHttpError } from '../../src/sim/types.js';

const v = sandboxVendors({});
const body = {
  video_id: 'vid_seed_ok',
  project_id: 'proj_seed_ok',
  video_type: 'video',
  model_family: 'precision',
  model: 'any-model-name',
  target_resolution: '1080p',
};
const video = (p: Partial<OwnedVideo>): OwnedVideo => ({
  videoId: 'v',
  projectId: 'p',
  videoType: 'video',
  accountKey: 'k',
  url: 'https://x.example.com/v.mp4',
  width: 720,
  height: 1280,
  durationS: 30,
  fps: 30,
  ...p,
});

function msg(f: () => unknown): string {
  try {
    f();
    return 'ok';
  } catch (e) {
    if (e instanceof SimHttpError && e.status === 400) return e.message;
    throw e;
  }
}
const check = (b: Record<string, unknown>) => msg(() => validateUpscaleBody(b, v));
const plan = (p: Partial<OwnedVideo>, target = '1080p', family = 'precision') =>
  msg(() => planUpscale(video(p), { targetResolution: target as '1080p', modelFamily: family as 'precision' }));

describe('upscale body', () => {
  it('resolves the vendor-named video types', () => {
    const t = upscaleVideoTypes(v);
    expect(t).toHaveLength(15);
    expect(t).toEqual(
      expect.arrayContaining([
        'wan-animate',
        'vendorb2',
        'seedance_2_video',
        'seedance_25_video',
        'grok_video',
        'vendore_video',
        'veo3_extend',
        'platform_background_removal',
      ]),
    );
    expect(check({ ...body, video_type: 'veo3_extend' })).toBe('ok');
    expect(check({ ...body, video_type: '<vendorF>3_extend' })).toMatch(/^video_type:/);
  });
  it('is strict: unknown fields, user_id and webhook_url', () => {
    expect(check(body)).toBe('ok');
    expect(check({ ...body, extra: 1 })).toMatch(/^extra: unknown parameter/);
    expect(check({ ...body, user_id: 'u' })).toMatch(/^user_id:/);
    expect(check({ ...body, webhook_url: 'https://h.example.com' })).toMatch(/^webhook_url:/);
  });
  it('requires each field, 1-256 characters, and the enums', () => {
    for (const f of Object.keys(body)) {
      const b: Record<string, unknown> = { ...body };
      delete b[f];
      expect(check(b)).toMatch(new RegExp(`^${f}: is required`));
    }
    expect(check({ ...body, model: 'm'.repeat(256) })).toBe('ok');
    expect(check({ ...body, model: 'm'.repeat(257) })).toMatch(/^model: must be at most 256/);
    expect(check({ ...body, video_id: 'v'.repeat(257) })).toMatch(/^video_id:/);
    expect(check({ ...body, model_family: 'fast' })).toMatch(/^model_family:/);
    expect(check({ ...body, target_resolution: '4k' })).toMatch(/^target_resolution:/);
  });
});

describe('upscale geometry and limits', () => {
  it('enforces 300 s and 60 fps', () => {
    expect(plan({ durationS: 300, fps: 60 })).toBe('ok');
    expect(plan({ durationS: 301 })).toMatch(/^video_id: source is 301 s long/);
    expect(plan({ fps: 61 })).toMatch(/^video_id: source is 61 fps/);
  });
  it('needs factor 1-4 and output within 2160 x 3840', () => {
    expect(plan({}, '720p')).toBe('ok'); // factor 1
    expect(plan({}, '2160p')).toBe('ok'); // 720x1280 -> 2160x3840, factor 3
    expect(plan({ width: 2160, height: 3840 }, '1080p')).toMatch(/unsupported geometry/); // factor 0.5
    expect(plan({ width: 480, height: 854 }, '2160p')).toMatch(/unsupported geometry/); // factor 4.5
    expect(plan({ width: 540, height: 960 }, '2160p')).toBe('ok'); // factor 4, 3840 long side
    expect(plan({ width: 720, height: 1728 }, '2160p')).toMatch(/unsupported geometry/); // long side 5184
  });
  it('prices duration x factor x family', () => {
    const p = (target: '1080p' | '2160p', family: 'precision' | 'generative' | 'creative') =>
      planUpscale(video({}), { targetResolution: target, modelFamily: family });
    expect(p('1080p', 'precision')).toMatchObject({ factor: 1.5, credits: 45, width: 1080, height: 1920, frames: 900 });
    expect(p('2160p', 'generative').credits).toBe(270);
    expect(p('2160p', 'creative').credits).toBe(450);
  });
});
