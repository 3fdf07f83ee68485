import { describe, expect, it } from 'vitest';
import { aV26Edit } from '../../../tools/enterprise/models/a-v2-6-edit.js';
import { c15Pro } from '../../../tools/enterprise/models/c-1-5-pro.js';
import { imagineImageEdit } from '../../../tools/enterprise/models/d-imagine-image-edit.js';
import { dVideoT2v } from '../../../tools/enterprise/models/d-video-t2v.js';
import { flareEdit } from '../../../tools/enterprise/models/g-image-2-5-flare-edit.js';
import { omniFlashI2v } from '../../../tools/enterprise/models/h-omni-flash-1-1-i2v.js';
import { iEdit } from '../../../tools/enterprise/models/i-edit.js';
import { broll } from '../../../tools/enterprise/models/j-broll.js';
import { catalogPrice } from '../../../tools/enterprise/models/spec.js';

describe('spec prices', () => {
  it('fixed prices stand unless the catalog publishes more (both are published: the quote covers either)', () => {
    expect(imagineImageEdit.price({}, '10 credits per generation')).toMatchObject({
      credits: 10,
      basis: expect.stringMatching(/^spec:/),
    });
    expect(imagineImageEdit.price({}, '999 credits')).toMatchObject({ credits: 999 });
    expect(imagineImageEdit.price({}, 'varies')).toMatchObject({ credits: 10 });
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
      basis: expect.stringMatching(/^catalog: .*per image × 4/),
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

  it('no usable bound → unbounded, never an assumed figure', () => {
    expect(flareEdit.price({}, undefined)).toMatchObject({ bounded: false });
    expect(catalogPrice('varies')).toMatchObject({ bounded: false });
    expect(iEdit.price({ num_images: 2 }, 'varies')).toMatchObject({ bounded: false });
    expect(
      flareEdit.price(
        { size: '3840x2160', quality: 'max' },
        '12 credits per image at 1024x1024 auto quality; scales with size and quality',
      ),
    ).toMatchObject({ bounded: false });
  });

  it('labelled tiers: the tier the call uses (defaults included), else the dearest', () => {
    const rate = '8 credits per second at 720p (360p 4, 1080p 12, 4k 24)';
    expect(omniFlashI2v.price({ resolution: '4k', duration: 10 }, rate)).toMatchObject({ credits: 240 });
    const iRate = '15 credits per image at 1K (2K 20, 4K 30)';
    expect(iEdit.price({ num_images: 4, resolution: '4K' }, iRate)).toMatchObject({ credits: 120 });
  });
});
