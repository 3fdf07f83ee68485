/**
 * Issue 18 review (M1): a digit string or a count-like key on an unpublished param must not pass as a
 * price-neutral setting. Before, `{num_image: "4"}` and `{images: "4"}` were quoted for one output and approved.
 */
import { describe, expect, it } from 'vitest';
import { isCountName } from '../../../tools/enterprise/models/counts.js';
import { usageOf } from '../../../tools/enterprise/models/usage.js';

describe('usageOf, strings under unpublished keys', () => {
  it.each([
    [{ images: '4' }],
    [{ seconds: '30' }],
    [{ num_frames: 'many' }],
    [{ numFrames: 'many' }],
    [{ quality: '2' }],
  ])('%j makes the usage unknown (unbounded quote)', (params) => {
    expect(usageOf(params as Record<string, unknown>).ok).toBe(false);
  });

  it('a media value under a count-like or media key is counted as media (issue 27)', () => {
    expect(usageOf({ reference_image: 'https://cdn.example.com/a.png' })).toMatchObject({
      ok: true,
      usage: { media: 1 },
    });
  });

  it.each([[{ style: 'cinematic' }], [{ aspect_ratio: '16:9' }], [{ refine: 'on' }]])(
    '%j is a setting the price must read (issue 27: never assumed price-neutral)',
    (params) => {
      expect(usageOf(params as Record<string, unknown>)).toMatchObject({
        ok: true,
        usage: { unpublished: Object.keys(params) },
      });
    },
  );

  it.each([[{ prompt: 'a cat, 4 legs' }], [{ negative_prompt: 'no dogs' }]])('%j is price-neutral text', (params) => {
    expect(usageOf(params as Record<string, unknown>)).toMatchObject({ ok: true, usage: { unpublished: [] } });
  });

  it('a published string param is a setting even when numeric', () => {
    expect(usageOf({ quality: '2' }, {}, new Set(['quality']))).toMatchObject({
      ok: true,
      usage: { settings: { quality: '2' } },
    });
  });

  it.each(['num_image', 'numImages', 'sampleCount', 'numberOfImages', 'num_images', 'n'])('%s is a count name', (k) => {
    expect(isCountName(k)).toBe(true);
  });

  it('a camelCase count multiplies the outputs', () => {
    expect(usageOf({ numImages: 3 })).toMatchObject({ ok: true, usage: { outputs: 3 } });
    expect(usageOf({ num_image: '4' })).toMatchObject({ ok: true, usage: { outputs: 4 } });
  });
});
