import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UserInputError } from '../../src/errors.js';
import { checkVideoType, upscaleBody, upscaleFields, upscaleVideoTypes } from '../../tools/_shared/upscale.js';

const ALL = { A: 'wan', B: 'kling', C: 'seedance', D: 'grok', E: 'hailuo', F: 'veo' };

describe('upscale video_type', () => {
  it('resolves the seven vendor-named values from the vendor map', () => {
    const { values, unset } = upscaleVideoTypes(ALL);
    expect(unset).toEqual([]);
    expect(values).toHaveLength(15);
    expect(values).toEqual(
      expect.arrayContaining([
        'video',
        'platform_background_removal',
        'wan-animate',
        'kling2',
        'seedance_2_video',
        'seedance_25_video',
        'grok_video',
        'hailuo_video',
        'veo3_extend',
      ]),
    );
  });

  it('leaves out values of unset letters and names GENPLAT_VENDORS when one is asked for', () => {
    const { values, unset } = upscaleVideoTypes({ C: 'seedance' });
    expect(values).toContain('seedance_25_video');
    expect(unset).toEqual(['A', 'B', 'D', 'E', 'F']);
    expect(() => checkVideoType('seedance_2_video', { C: 'seedance' })).not.toThrow();
    const err = (() => {
      try {
        checkVideoType('veo3_extend', { C: 'seedance' });
      } catch (e) {
        return e as UserInputError;
      }
    })();
    expect(err).toBeInstanceOf(UserInputError);
    expect(err?.field).toBe('video_type');
    expect(err?.rule).toMatch(/GENPLAT_VENDORS sets A, B, D, E, F/);
  });

  it('refuses an unknown value without mentioning vendors when all are set', () => {
    expect(() => checkVideoType('movie', ALL)).toThrow(/video_type: must be one of video, product-in-hand/);
    expect(() => checkVideoType('movie', ALL)).not.toThrow(/GENPLAT_VENDORS/);
  });
});

describe('upscale fields and body', () => {
  const schema = z.strictObject(upscaleFields);
  const good = {
    video_id: 'v1',
    project_id: 'p1',
    video_type: 'video',
    model_family: 'precision',
    model: 'm',
    target_resolution: '1080p',
  } as const;

  it('bounds ids to 1-256 characters and enums to the spec values', () => {
    expect(schema.safeParse(good).success).toBe(true);
    expect(schema.safeParse({ ...good, video_id: '' }).success).toBe(false);
    expect(schema.safeParse({ ...good, project_id: 'p'.repeat(257) }).success).toBe(false);
    expect(schema.safeParse({ ...good, model: 'm'.repeat(256) }).success).toBe(true);
    expect(schema.safeParse({ ...good, model_family: 'fast' }).success).toBe(false);
    expect(schema.safeParse({ ...good, target_resolution: '4k' }).success).toBe(false);
  });

  it('sends exactly the six platform fields', () => {
    const extra = { ...good, webhook_url: 'https://x.example.com', user_id: 'u' } as typeof good;
    expect(Object.keys(upscaleBody(extra)).sort()).toEqual(
      ['model', 'model_family', 'project_id', 'target_resolution', 'video_id', 'video_type'].sort(),
    );
  });
});
