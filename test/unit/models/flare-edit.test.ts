import { describe, expect, it } from 'vitest';
import { flareEdit, flareSizeProblem } from '../../../tools/enterprise/models/g-image-2-5-flare-edit.js';
import { accepts, DATA_URI, IMG, IMG2, PRIVATE, rejects } from './helpers.js';

const ok = { prompt: 'make it blue', image_urls: [IMG] };

describe('<vendorG>-image-2.5-flare-edit params', () => {
  it('accepts a minimal and a full valid request', () => {
    accepts(flareEdit, ok);
    accepts(flareEdit, {
      prompt: 'x'.repeat(5000),
      image_urls: [IMG, IMG2],
      size: '1536x1024',
      quality: 'xhigh',
      mask_url: IMG2,
      background: 'transparent',
      output_format: 'webp',
      output_compression: 100,
    });
  });

  it('is strict: unknown params are rejected', () => {
    rejects(flareEdit, { ...ok, seed: 1 }, 'params.seed', /strict/);
  });

  it('checks prompt length and presence', () => {
    rejects(flareEdit, { image_urls: [IMG] }, 'params.prompt', /required/);
    rejects(flareEdit, { ...ok, prompt: '' }, 'params.prompt', /must not be empty/);
    rejects(flareEdit, { ...ok, prompt: 'x'.repeat(5001) }, 'params.prompt', /at most 5000/);
  });

  it('checks image_urls count and form', () => {
    rejects(flareEdit, { prompt: 'p' }, 'params.image_urls', /required/);
    rejects(flareEdit, { ...ok, image_urls: [] }, 'params.image_urls', /at least 1/);
    rejects(flareEdit, { ...ok, image_urls: [IMG, IMG2, IMG] }, 'params.image_urls', /at most 2/);
    rejects(flareEdit, { ...ok, image_urls: [PRIVATE] }, 'params.image_urls[0]');
    rejects(flareEdit, { ...ok, image_urls: [DATA_URI] }, 'params.image_urls[0]');
    rejects(flareEdit, { ...ok, mask_url: PRIVATE }, 'params.mask_url');
  });

  it('checks the enums and the compression range', () => {
    rejects(flareEdit, { ...ok, quality: 'ultra' }, 'params.quality', /one of/);
    rejects(flareEdit, { ...ok, background: 'clear' }, 'params.background', /one of/);
    rejects(flareEdit, { ...ok, output_format: 'gif' }, 'params.output_format', /one of/);
    rejects(flareEdit, { ...ok, output_format: 'jpeg', output_compression: 101 }, 'params.output_compression');
    rejects(flareEdit, { ...ok, output_format: 'jpeg', output_compression: -1 }, 'params.output_compression');
    rejects(flareEdit, { ...ok, output_format: 'jpeg', output_compression: 50.5 }, 'params.output_compression');
  });

  it('transparent background requires png or webp', () => {
    rejects(flareEdit, { ...ok, background: 'transparent', output_format: 'jpeg' }, 'params.background', /png or webp/);
    accepts(flareEdit, { ...ok, background: 'transparent' }); // default png
    accepts(flareEdit, { ...ok, background: 'transparent', output_format: 'png' });
  });

  it('output_compression only with jpeg or webp (default png counts)', () => {
    rejects(flareEdit, { ...ok, output_compression: 80 }, 'params.output_compression', /jpeg or webp/);
    rejects(flareEdit, { ...ok, output_compression: 80, output_format: 'png' }, 'params.output_compression');
    accepts(flareEdit, { ...ok, output_compression: 0, output_format: 'jpeg' });
    accepts(flareEdit, { ...ok, output_compression: 80, output_format: 'webp' });
  });

  it('accepts every preset size and auto', () => {
    for (const size of [
      'auto',
      '1024x1024',
      '1536x1024',
      '1024x1536',
      '2048x2048',
      '2048x1152',
      '3840x2160',
      '2160x3840',
    ])
      accepts(flareEdit, { ...ok, size });
  });
});

describe('flare custom size edges', () => {
  it.each([
    ['1024x640', 655_360], // exactly the minimum pixels
    ['3840x2160', 8_294_400], // exactly the maximum pixels (also a preset)
    ['2400x3456', 8_294_400], // custom at the maximum pixels
    ['2400x800', 1_920_000], // exactly 3:1
    ['800x2400', 1_920_000], // exactly 1:3
    ['3840x1280', 4_915_200], // 3840 on a side, 3:1
  ])('accepts %s', (size) => {
    expect(flareSizeProblem(size)).toBeUndefined();
    accepts(flareEdit, { ...ok, size });
  });

  it.each([
    ['1008x640', /total pixels/], // 645120 < 655360, multiples of 16
    ['1024x624', /total pixels/],
    ['3856x1600', /at most 3840/], // 3856 > 3840
    ['2416x3456', /total pixels|at most/], // 8349696 > max
    ['2416x800', /aspect/], // just over 3:1
    ['800x2416', /aspect/],
    ['1000x1000', /multiples of 16/],
    ['1024x1030', /multiples of 16/],
    ['0x1024', /total pixels/],
    ['1024 x 1024', /WxH/],
    ['big', /WxH/],
    ['', /WxH/],
  ])('rejects %s', (size, rule) => {
    expect(flareSizeProblem(size)).toMatch(rule);
    rejects(flareEdit, { ...ok, size }, 'params.size', rule);
  });
});
