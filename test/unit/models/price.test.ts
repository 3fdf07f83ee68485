import { describe, expect, it } from 'vitest';
import { aV26Edit } from '../../../tools/enterprise/models/a-v2-6-edit.js';
import { c15Pro } from '../../../tools/enterprise/models/c-1-5-pro.js';
import { imagineImageEdit } from '../../../tools/enterprise/models/d-imagine-image-edit.js';
import { dVideoT2v } from '../../../tools/enterprise/models/d-video-t2v.js';
import { flareEdit } from '../../../tools/enterprise/models/g-image-2-5-flare-edit.js';
import { omniFlashI2v } from '../../../tools/enterprise/models/h-omni-flash-1-1-i2v.js';
import { iEdit } from '../../../tools/enterprise/models/i-edit.js';
import { broll } from '../../../tools/enterprise/models/j-broll.js';
import { ASSUMED_UNKNOWN_CREDITS, catalogPrice, parseCatalogCredits } from '../../../tools/enterprise/models/spec.js';

describe('spec prices', () => {
  it('fixed prices ignore the catalog string', () => {
    expect(imagineImageEdit.price({}, '999 credits')).toMatchObject({
      credits: 10,
      basis: expect.stringMatching(/^spec:/),
    });
    expect(broll.price({})).toMatchObject({ credits: 50 });
    expect(c15Pro.price({ duration: 12 }, '1 credit')).toMatchObject({ credits: 50 });
  });

  it('<vendorD>-video-t2v: 10 s = 50, 15 s = 100, omitted = the dearer 100 (assumed)', () => {
    expect(dVideoT2v.price({ duration: 10 })).toMatchObject({ credits: 50 });
    expect(dVideoT2v.price({ duration: 15 })).toMatchObject({ credits: 100 });
    expect(dVideoT2v.price({})).toMatchObject({ credits: 100, basis: expect.stringMatching(/assumed/) });
  });

  it('per-image models multiply by the output count', () => {
    expect(iEdit.price({ num_images: 3 }, '15 credits per image at 1K')).toMatchObject({ credits: 45 });
    expect(iEdit.price({}, '15 credits per image at 1K')).toMatchObject({ credits: 15 });
    expect(aV26Edit.price({ max_images: 4 }, '10 credits per image')).toMatchObject({
      credits: 40,
      basis: expect.stringMatching(/^catalog: .*× 4 images/),
    });
  });

  it('per-second catalog rates use the duration (or the model default)', () => {
    const rate = '8 credits per second at 720p (360p 4, 1080p 12, 4k 24)';
    expect(omniFlashI2v.price({ duration: 5 }, rate)).toMatchObject({ credits: 40 });
    expect(omniFlashI2v.price({}, rate)).toMatchObject({ credits: 64 }); // default 8 s
  });

  it('catalog-priced models read the catalog number', () => {
    expect(flareEdit.price({}, '12 credits per image at 1024x1024')).toMatchObject({
      credits: 12,
      basis: expect.stringMatching(/^catalog:/),
    });
  });

  it('falls back to a stated assumption when no number is known', () => {
    expect(flareEdit.price({}, undefined)).toEqual({
      credits: ASSUMED_UNKNOWN_CREDITS.image,
      basis: expect.stringMatching(/^unknown: platform charges its own rate/),
    });
    expect(catalogPrice('video', 'varies')).toMatchObject({ credits: ASSUMED_UNKNOWN_CREDITS.video });
    expect(iEdit.price({ num_images: 2 }, 'varies').credits).toBe(2 * ASSUMED_UNKNOWN_CREDITS.image);
  });
});

describe('parseCatalogCredits', () => {
  it.each([
    ['10 credits per generation', 10, false],
    ['0.5 API credit units', 50, false],
    ['1 API unit', 100, false],
    ['6 credits per second at 720p', 6, true],
    ['4 credits/s', 4, true],
    ['12', 12, false],
  ])('%s → %d', (raw, credits, perSecond) => {
    expect(parseCatalogCredits(raw)).toEqual({ credits, perSecond });
  });
  it('returns undefined without a number', () => {
    expect(parseCatalogCredits('depends')).toBeUndefined();
    expect(parseCatalogCredits(undefined)).toBeUndefined();
  });
});
