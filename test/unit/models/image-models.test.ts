import { describe, it } from 'vitest';
import { aV26Edit } from '../../../tools/enterprise/models/a-v2-6-edit.js';
import { imagineImageEdit } from '../../../tools/enterprise/models/d-imagine-image-edit.js';
import { sunburstEdit } from '../../../tools/enterprise/models/g-image-2-5-sunburst-edit.js';
import { iEdit } from '../../../tools/enterprise/models/i-edit.js';
import { kV3Edit } from '../../../tools/enterprise/models/k-v3-edit.js';
import { accepts, DATA_URI, IMG, IMG2, PRIVATE, rejects } from './helpers.js';

describe('<vendorG>-image-2.5-sunburst-edit (values not published: types only)', () => {
  const ok = { prompt: 'p', image_urls: [IMG] };
  it('accepts valid params, any size/quality strings and unknown extras (not strict)', () => {
    accepts(sunburstEdit, { ...ok, size: '4000x4000', quality: 'whatever', output_compression: 5, extra: true });
  });
  it('rejects missing or mistyped fields', () => {
    rejects(sunburstEdit, { image_urls: [IMG] }, 'params.prompt', /required/);
    rejects(sunburstEdit, { prompt: 'p' }, 'params.image_urls', /required/);
    rejects(sunburstEdit, { ...ok, image_urls: [] }, 'params.image_urls');
    rejects(sunburstEdit, { ...ok, size: 1024 }, 'params.size');
    rejects(sunburstEdit, { ...ok, mask_url: DATA_URI }, 'params.mask_url');
  });
});

describe('<vendorI>-edit (strict, polling-only)', () => {
  const ok = { prompt: 'p', image_urls: [IMG] };
  it('accepts valid params', () => {
    accepts(iEdit, ok);
    accepts(iEdit, {
      prompt: 'x'.repeat(2000),
      image_urls: [IMG, IMG2],
      num_images: 4,
      aspect_ratio: '21:9',
      output_format: 'jpeg',
      resolution: '4K',
    });
  });
  it('rejects each broken rule', () => {
    rejects(iEdit, { ...ok, style: 'x' }, 'params.style', /strict/);
    rejects(iEdit, { ...ok, prompt: '' }, 'params.prompt');
    rejects(iEdit, { ...ok, prompt: 'x'.repeat(2001) }, 'params.prompt', /at most 2000/);
    rejects(iEdit, { ...ok, image_urls: [] }, 'params.image_urls');
    rejects(iEdit, { ...ok, image_urls: [IMG, IMG, IMG] }, 'params.image_urls', /at most 2/);
    rejects(iEdit, { ...ok, num_images: 0 }, 'params.num_images', /at least 1/);
    rejects(iEdit, { ...ok, num_images: 5 }, 'params.num_images', /at most 4/);
    rejects(iEdit, { ...ok, num_images: 1.5 }, 'params.num_images', /integer/);
    rejects(iEdit, { ...ok, num_images: '2' }, 'params.num_images', /integer/);
    rejects(iEdit, { ...ok, aspect_ratio: '2:1' }, 'params.aspect_ratio', /one of/);
    rejects(iEdit, { ...ok, output_format: 'gif' }, 'params.output_format');
    rejects(iEdit, { ...ok, resolution: '1k' }, 'params.resolution', /1K/); // case-sensitive
  });
});

describe('<vendorD>-imagine-image-edit', () => {
  const ok = { prompt: 'p', image_urls: [IMG] };
  it('accepts valid params', () => {
    accepts(imagineImageEdit, { ...ok, image_urls: [IMG, IMG2], resolution: '4k', output_format: 'png' });
  });
  it('rejects each broken rule', () => {
    rejects(imagineImageEdit, { ...ok, prompt: 'x'.repeat(2001) }, 'params.prompt', /2000/);
    rejects(imagineImageEdit, { ...ok, image_urls: [IMG, IMG, IMG] }, 'params.image_urls', /at most 2/);
    rejects(imagineImageEdit, { ...ok, resolution: '4K' }, 'params.resolution', /1k, 2k, 4k/);
    rejects(imagineImageEdit, { ...ok, output_format: 'bmp' }, 'params.output_format');
    rejects(imagineImageEdit, { ...ok, image_urls: [PRIVATE] }, 'params.image_urls[0]');
  });
});

describe('<vendorK>-v3-edit', () => {
  const ok = { prompt: 'p', image_url: IMG };
  it('accepts a preset or {width, height} image_size and a palette', () => {
    accepts(kV3Edit, { ...ok, image_size: 'square_hd', colors: [{ r: 0, g: 128, b: 255 }], strength: 0.5 });
    accepts(kV3Edit, { ...ok, image_size: { width: 1024, height: 768 }, style: 'AUTO', negative_prompt: 'blur' });
  });
  it('rejects broken image_size, colors and media', () => {
    rejects(kV3Edit, { ...ok, image_size: { width: 1024 } }, 'params.image_size.height', /required/);
    rejects(kV3Edit, { ...ok, image_size: { width: 10.5, height: 10 } }, 'params.image_size.width', /integer/);
    rejects(kV3Edit, { ...ok, image_size: { width: 8, height: 8, depth: 1 } }, 'params.image_size.depth', /unknown/);
    rejects(kV3Edit, { ...ok, image_size: 42 }, 'params.image_size');
    rejects(kV3Edit, { ...ok, colors: [{ r: 1, g: 2 }] }, 'params.colors[0].b', /required/);
    rejects(kV3Edit, { ...ok, colors: [{ r: 256, g: 0, b: 0 }] }, 'params.colors[0].r', /255/);
    rejects(kV3Edit, { ...ok, strength: 'high' }, 'params.strength');
    rejects(kV3Edit, { prompt: 'p' }, 'params.image_url', /required/);
    rejects(kV3Edit, { ...ok, image_url: DATA_URI }, 'params.image_url');
  });
});

describe('<vendorA>-v2.6-edit', () => {
  const ok = { prompt: 'p', image_urls: [IMG] };
  it('accepts valid params', () => {
    accepts(aV26Edit, {
      ...ok,
      image_size: { width: 512, height: 512 },
      max_images: 3,
      enable_safety_checker: false,
      negative_prompt: 'x',
      enable_prompt_expansion: true,
    });
  });
  it('rejects each broken rule', () => {
    rejects(aV26Edit, { prompt: 'p' }, 'params.image_urls', /required/);
    rejects(aV26Edit, { ...ok, max_images: 0 }, 'params.max_images');
    rejects(aV26Edit, { ...ok, max_images: 2.5 }, 'params.max_images', /integer/);
    rejects(aV26Edit, { ...ok, enable_safety_checker: 'no' }, 'params.enable_safety_checker');
    rejects(aV26Edit, { ...ok, image_size: { height: 5 } }, 'params.image_size.width', /required/);
  });
});
