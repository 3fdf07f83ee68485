/**
 * run_model prices (tools/enterprise/models/price.ts): the catalog text through the price grammar for what
 * the call uses, raised to the spec's own figure. Fail closed: a count, duration or param whose effect is not
 * known makes the quote unbounded, never a lower guess.
 */
import { describe, expect, it } from 'vitest';
import { aV26Edit } from '../../../tools/enterprise/models/a-v2-6-edit.js';
import { c15Pro } from '../../../tools/enterprise/models/c-1-5-pro.js';
import { c20I2v } from '../../../tools/enterprise/models/c-2-0-i2v.js';
import { imagineImageEdit } from '../../../tools/enterprise/models/d-imagine-image-edit.js';
import { dVideoT2v } from '../../../tools/enterprise/models/d-video-t2v.js';
import { flareEdit } from '../../../tools/enterprise/models/g-image-2-5-flare-edit.js';
import { sunburstEdit } from '../../../tools/enterprise/models/g-image-2-5-sunburst-edit.js';
import { omniFlashI2v } from '../../../tools/enterprise/models/h-omni-flash-1-1-i2v.js';
import { iEdit } from '../../../tools/enterprise/models/i-edit.js';
import { broll } from '../../../tools/enterprise/models/j-broll.js';
import { kV3Edit } from '../../../tools/enterprise/models/k-v3-edit.js';
import { modelPrice } from '../../../tools/enterprise/models/price.js';

const IMG = 'https://cdn.example.com/a.png';

describe('spec prices', () => {
  it('fixed prices stand unless the catalog publishes more (both are published: the quote covers either)', () => {
    expect(modelPrice(imagineImageEdit, {}, '10 credits per generation')).toMatchObject({
      credits: 10,
      basis: expect.stringMatching(/^spec:/),
    });
    expect(modelPrice(imagineImageEdit, {}, '999 credits')).toMatchObject({ credits: 999 });
    expect(modelPrice(imagineImageEdit, {}, 'varies')).toMatchObject({ credits: 10 });
    expect(modelPrice(broll, {}, undefined)).toMatchObject({ credits: 50 });
    expect(modelPrice(c15Pro, { duration: 12 }, '1 credit')).toMatchObject({ credits: 50 });
  });

  it('<vendorD>-video-t2v: 10 s = 50, 15 s = 100, omitted = the dearer 100 (assumed)', () => {
    expect(modelPrice(dVideoT2v, { duration: 10 }, undefined)).toMatchObject({ credits: 50 });
    expect(modelPrice(dVideoT2v, { duration: 15 }, undefined)).toMatchObject({ credits: 100 });
    expect(modelPrice(dVideoT2v, {}, undefined)).toMatchObject({
      credits: 100,
      basis: expect.stringMatching(/assumed/),
    });
  });

  it('a count-like param multiplies even a per-generation spec price', () => {
    expect(modelPrice(imagineImageEdit, { n: 3 }, '10 credits per generation')).toMatchObject({ credits: 30 });
  });
});

describe('output counts', () => {
  it('the published count field multiplies; absent → its published default', () => {
    expect(modelPrice(iEdit, { num_images: 3 }, '15 credits per image at 1K (2K 20, 4K 30)')).toMatchObject({
      credits: 45,
    });
    expect(modelPrice(iEdit, {}, '15 credits per image at 1K (2K 20, 4K 30)')).toMatchObject({ credits: 15 });
    expect(modelPrice(aV26Edit, { max_images: 4 }, '10 credits per image')).toMatchObject({ credits: 40 });
  });

  it('a count field without a published default, omitted → unbounded', () => {
    expect(modelPrice(aV26Edit, { image_urls: [IMG] }, '10 credits per image')).toMatchObject({ bounded: false });
  });

  it('models whose spec ties the price to the output count multiply by any count-like param they are sent', () => {
    expect(modelPrice(kV3Edit, { num_images: 4 }, '20 credits per image')).toMatchObject({ credits: 80 });
    expect(modelPrice(sunburstEdit, { n: 4 }, '2-64 credits per image depending on size and quality')).toMatchObject({
      credits: 256,
    });
    expect(modelPrice(kV3Edit, { batch_size: 2, num_images: 3 }, '20 credits per image')).toMatchObject({
      credits: 120,
    });
  });
});

describe('durations, tiers and media', () => {
  const rate = '8 credits per second at 720p (360p 4, 1080p 12, 4k 24)';
  it('per-second rates use the duration, or the published default', () => {
    expect(modelPrice(omniFlashI2v, { duration: 5 }, rate)).toMatchObject({ credits: 40 });
    expect(modelPrice(omniFlashI2v, {}, rate)).toMatchObject({ credits: 64 });
    expect(modelPrice(omniFlashI2v, { resolution: '4k', duration: 10 }, rate)).toMatchObject({ credits: 240 });
  });

  it('no published default duration → a per-second price is unbounded', () => {
    expect(modelPrice(c20I2v, {}, '6 credits per second at 720p (480p 3, 1080p 12)')).toMatchObject({
      bounded: false,
    });
    expect(modelPrice(c20I2v, { duration: '5' }, '6 credits per second at 720p (480p 3, 1080p 12)')).toMatchObject({
      credits: 60,
    });
  });

  it('a resolution the tiers do not name → unbounded', () => {
    expect(
      modelPrice(c20I2v, { duration: 5, resolution: '4k' }, '6 credits per second at 720p (480p 3, 1080p 12)'),
    ).toMatchObject({ bounded: false, basis: expect.stringContaining('resolution "4k"') });
  });

  it('every list of media counts: an empty one never hides another', () => {
    const text = '6 credits per image plus 1 credit per reference image';
    const ten = Array.from({ length: 10 }, () => IMG);
    expect(modelPrice(undefined, { prompt: 'p', reference_image_urls: [], image_urls: ten }, text)).toMatchObject({
      credits: 16,
    });
  });

  it('the flare text does not parse → unbounded', () => {
    expect(
      modelPrice(
        flareEdit,
        { size: '3840x2160', quality: 'max' },
        '12 credits per image at 1024x1024 auto quality; scales with size and quality',
      ),
    ).toMatchObject({ bounded: false });
  });
});

describe('models without a published schema', () => {
  it('counts under every count-like name multiply', () => {
    for (const key of ['num_images', 'n', 'num_outputs', 'batch_size', 'number_of_images', 'num_videos', 'max_images'])
      expect(modelPrice(undefined, { prompt: 'p', [key]: 3 }, '6 credits per image'), key).toMatchObject({
        credits: 18,
      });
    expect(modelPrice(undefined, { prompt: 'p', num_outputs: '2' }, '6 credits per image')).toMatchObject({
      credits: 12,
    });
  });

  it('an unknown number, list, object or boolean → unbounded, naming it; a seed does not', () => {
    for (const params of [
      { prompt: 'p', num_inference_steps: 50 },
      { prompt: 'p', loras: ['a'] },
      { prompt: 'p', image_size: { width: 2048, height: 2048 } },
      { prompt: 'p', image_urls: [{ url: IMG }] },
    ])
      expect(modelPrice(undefined, params, '6 credits per image'), JSON.stringify(params)).toMatchObject({
        bounded: false,
        basis: expect.stringMatching(/^params\./),
      });
    expect(modelPrice(undefined, { prompt: 'p', seed: 7 }, '6 credits per image')).toMatchObject({
      credits: 6,
    });
  });

  // Issue 27 (low): booleans and free strings on unpublished models were assumed price-neutral.
  it('a boolean, or a free string no tier reads, is unbounded; a string a listed tier reads is priced', () => {
    for (const params of [{ hd: true }, { generate_audio: false }, { style: 'neon' }, { quality: 'high' }]) {
      expect(
        modelPrice(undefined, { prompt: 'p', ...params }, '6 credits per image'),
        JSON.stringify(params),
      ).toMatchObject({
        bounded: false,
        basis: expect.stringContaining('params.'),
      });
    }
    expect(
      modelPrice(undefined, { prompt: 'p', resolution: '2K' }, '15 credits per image at 1K (2K 20, 4K 30)'),
    ).toMatchObject({ bounded: true, credits: 20 });
    // The prompt is never a setting, even one that reads like a tier.
    expect(modelPrice(undefined, { prompt: '4k' }, '15 credits per image at 1K (2K 20, 4K 30)')).toMatchObject({
      bounded: true,
      credits: 30,
    });
  });

  // Issue 27 (medium): media under keys without "url" were not counted for a per-reference-image price.
  it('every media item counts, under any key: URLs, data URIs, upload: references, local paths', () => {
    const text = '6 credits per image plus 1 credit per reference image';
    const params = {
      prompt: 'p',
      human_img: IMG,
      garm_img: 'data:image/png;base64,iVBORw0KGgo=',
      mask: 'upload:abcdefgh12',
      reference_image: './photos/me.png',
      image_urls: [IMG, '/tmp/b.jpg'],
    };
    expect(modelPrice(undefined, params, text)).toMatchObject({ bounded: true, credits: 12 });
  });

  it('a setting of another tier kind than the listed tiers → unbounded (not the dearest of the listed kind)', () => {
    expect(
      modelPrice(undefined, { prompt: 'p', size: '2048x2048' }, '80 credits per generation at 720p (1080p 160)'),
    ).toMatchObject({ bounded: false, basis: expect.stringContaining('size') });
  });
});
