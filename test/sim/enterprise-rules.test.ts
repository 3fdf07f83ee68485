/**
 * The enterprise model validators as pure functions: one accepting case per shape, and at least one
 * rejecting case per rule of the spec's parameter tables.
 */
import { describe, expect, it } from 'vitest';
import { sandboxVendors } from '../../src/config.js';
import { buildCatalog, findModel } from '../../src/sim/models/catalog.js';
import { checkFlareSize } from '../../src/sim/models/image-size.js';
import { isPublicUrl } from '../../src/sim/public-url.js';
import { SimHttpError } from '../../src/sim/types.js';

const vendors = sandboxVendors({});
const env = { isPublicUrl: (u: string, o?: { allowDataUri?: boolean }) => isPublicUrl(u, 'http://127.0.0.1:1', o) };
const IMG = 'https://cdn.example.com/a.png';
const VID = 'https://cdn.example.com/a.mp4';
const DATA = 'data:image/png;base64,iVBORw0KGgo=';

function model(id: string) {
  const m = findModel(vendors, id);
  if (!m) throw new Error(`no model ${id}`);
  return m;
}

/** The 400 message a validator throws, or 'ok'. */
function run(id: string, params: Record<string, unknown>): string {
  try {
    model(id).validate(params, env);
    return 'ok';
  } catch (e) {
    if (e instanceof SimHttpError && e.status === 400) return e.message;
    throw e;
  }
}

const FLARE = 'gpt-image-2.5-flare-edit';
const flare = (p: Record<string, unknown>) => run(FLARE, { prompt: 'x', image_urls: [IMG], ...p });

describe('catalog', () => {
  it('names every spec model with default sandbox vendors, plus t2i and edit variants, no family ids', () => {
    const ids = buildCatalog(vendors).map((m) => m.model);
    expect(ids).toEqual(
      expect.arrayContaining([
        'gpt-image-2.5-flare-edit',
        'gpt-image-2.5-sunburst-edit',
        'vendorh-omni-flash-1-1-i2v',
        'nano-banana-edit',
        'grok-imagine-image-edit',
        'vendorj-broll',
        'seedance-1-5-pro',
        'grok-imagine-video-1-5-r2v',
        'ideogram-v3-edit',
        'seedance-2-0-i2v',
        'wan-v2.6-edit',
        'vendore-h3-max-3d-to-video',
        'grok-video-t2v',
        'flux-2-pro',
        'imagen-4',
        'seedream-4',
      ]),
    );
    expect(ids.filter((i) => i.endsWith('-edit')).length).toBeGreaterThanOrEqual(8);
    expect(ids.some((i) => i.startsWith('seedance-2.'))).toBe(false);
    expect(new Set(ids).size).toBe(ids.length);
    // A unit word, or a bare figure (API units, as the spec writes enterprise prices).
    for (const m of buildCatalog(vendors))
      expect(m.credits).toMatch(/\d+ credits|\d api (credit )?units|^[\d.]+( (per|for) |$)/i);
  });

  it('follows an overridden vendor name', () => {
    const ids = buildCatalog(sandboxVendors({ G: 'acme' })).map((m) => m.model);
    expect(ids).toContain('acme-image-2.5-flare-edit');
  });

  it('uses the spec prices where given', () => {
    expect(model('grok-imagine-image-edit').validate({ prompt: 'x', image_urls: [IMG] }, env).credits).toBe(10);
    expect(model('vendorj-broll').validate({ prompt: 'x', image_url: IMG }, env).credits).toBe(50);
    expect(model('seedance-1-5-pro').validate({ prompt: 'x' }, env).credits).toBe(50);
    expect(model('grok-video-t2v').validate({ prompt: 'x', duration: 10 }, env).credits).toBe(50);
    expect(model('grok-video-t2v').validate({ prompt: 'x', duration: 15 }, env).credits).toBe(100);
  });
});

describe('<vendorG>-image-2.5-flare-edit', () => {
  it('accepts a full valid request', () => {
    expect(
      flare({
        size: '1536x1024',
        quality: 'xhigh',
        mask_url: IMG,
        background: 'transparent',
        output_format: 'webp',
        output_compression: 80,
        image_urls: [IMG, IMG],
      }),
    ).toBe('ok');
  });
  it('is strict', () => expect(flare({ seed: 1 })).toMatch(/^seed: unknown parameter/));
  it('bounds prompt 1-5000', () => {
    expect(run(FLARE, { prompt: '', image_urls: [IMG] })).toMatch(/^prompt:/);
    expect(flare({ prompt: 'a'.repeat(5000) })).toBe('ok');
    expect(flare({ prompt: 'a'.repeat(5001) })).toMatch(/^prompt: must be at most 5000/);
  });
  it('needs 1-2 image_urls, public, no data URIs', () => {
    expect(run(FLARE, { prompt: 'x' })).toMatch(/^image_urls: is required/);
    expect(flare({ image_urls: [] })).toMatch(/^image_urls: must have at least 1/);
    expect(flare({ image_urls: [IMG, IMG, IMG] })).toMatch(/^image_urls: must have at most 2/);
    expect(flare({ image_urls: ['http://10.0.0.1/a.png'] })).toMatch(/^image_urls\[0\]: must be a public/);
    expect(flare({ image_urls: [DATA] })).toMatch(/^image_urls\[0\]: data URIs are not accepted/);
  });
  it('checks enums: quality, background, output_format', () => {
    expect(flare({ quality: 'ultra' })).toMatch(/^quality: must be one of/);
    expect(flare({ background: 'clear' })).toMatch(/^background:/);
    expect(flare({ output_format: 'gif' })).toMatch(/^output_format:/);
  });
  it('mask_url must be a public URL', () => {
    expect(flare({ mask_url: 'http://localhost/m.png' })).toMatch(/^mask_url:/);
  });
  it('transparent background requires png or webp', () => {
    expect(flare({ background: 'transparent' })).toBe('ok'); // default png
    expect(flare({ background: 'transparent', output_format: 'png' })).toBe('ok');
    expect(flare({ background: 'transparent', output_format: 'jpeg' })).toMatch(/^background: transparent requires/);
  });
  it('output_compression only with jpeg or webp, integer 0-100', () => {
    expect(flare({ output_compression: 50 })).toMatch(/^output_compression: accepted only with/);
    expect(flare({ output_compression: 50, output_format: 'png' })).toMatch(/^output_compression:/);
    expect(flare({ output_compression: 0, output_format: 'jpeg' })).toBe('ok');
    expect(flare({ output_compression: 100, output_format: 'webp' })).toBe('ok');
    expect(flare({ output_compression: 101, output_format: 'jpeg' })).toMatch(
      /^output_compression: must be at most 100/,
    );
    expect(flare({ output_compression: -1, output_format: 'jpeg' })).toMatch(/^output_compression: must be at least 0/);
    expect(flare({ output_compression: 50.5, output_format: 'jpeg' })).toMatch(/must be an integer/);
  });
  it('prices by size and quality', () => {
    const c = (p: Record<string, unknown>) =>
      model(FLARE).validate({ prompt: 'x', image_urls: [IMG], ...p }, env).credits;
    expect(c({})).toBe(12);
    expect(c({ quality: 'low' })).toBe(4);
    expect(c({ size: '3840x2160' })).toBeGreaterThan(c({ size: '1024x1024' }));
  });
});

describe('flare custom size', () => {
  const ok = (s: string) => expect(() => checkFlareSize(s)).not.toThrow();
  const no = (s: string, rule: RegExp) => expect(() => checkFlareSize(s)).toThrow(rule);
  it('accepts auto and every preset', () => {
    for (const s of ['auto', '1024x1024', '1536x1024', '1024x1536', '2048x2048', '2048x1152', '3840x2160', '2160x3840'])
      ok(s);
  });
  it('accepts custom sizes on the edges', () => {
    ok('1024x640'); // exactly 655360 pixels
    ok('3840x2160'); // exactly 8294400 pixels
    ok('2304x768'); // exactly 3:1
    ok('768x2304'); // exactly 1:3
    ok('3840x1280'); // 3840 side, 3:1
  });
  it('rejects malformed values', () => {
    no('big', /^size: must be auto/);
    no('1024X1024', /^size: must be auto/);
    no('1024x', /^size: must be auto/);
    no('0x1024', /positive/);
  });
  it('rejects non-multiples of 16', () => no('1000x1024', /multiples of 16/));
  it('rejects a side above 3840', () => no('3856x1024', /at most 3840/));
  it('rejects total pixels outside 655360-8294400', () => {
    no('1008x640', /total pixels/); // 645120
    no('3840x2176', /total pixels/); // 8355840
  });
  it('rejects aspect ratios above 3:1', () => {
    no('2320x768', /aspect ratio/);
    no('768x2320', /aspect ratio/);
  });
});

describe('<vendorG>-image-2.5-sunburst-edit', () => {
  const S = 'gpt-image-2.5-sunburst-edit';
  it('accepts unknown values (not shown by the spec) but checks types and URLs', () => {
    expect(run(S, { prompt: 'x', image_urls: [IMG], size: '999x999', quality: 'whatever', extra: 1 })).toBe('ok');
    expect(run(S, { prompt: 'x', image_urls: [IMG], output_compression: 'high' })).toMatch(/^output_compression:/);
    expect(run(S, { prompt: 'x' })).toMatch(/^image_urls: is required/);
    expect(run(S, { prompt: 'x', image_urls: [DATA] })).toMatch(/^image_urls\[0\]: data URIs/);
  });
});

describe('<vendorH>-omni-flash-1-1-i2v', () => {
  const H = 'vendorh-omni-flash-1-1-i2v';
  const h = (p: Record<string, unknown>) => run(H, { prompt: 'x', image_url: IMG, ...p });
  it('accepts URLs and base64 data URIs', () => {
    expect(h({ end_image_url: IMG, resolution: '4k', duration: 3, aspect_ratio: '9:16' })).toBe('ok');
    expect(h({ image_url: DATA, end_image_url: DATA })).toBe('ok');
  });
  it('rejects private URLs and non-base64 data URIs', () => {
    expect(h({ image_url: 'http://192.168.1.1/a.png' })).toMatch(/^image_url:/);
    expect(h({ image_url: 'data:image/png,abc' })).toMatch(/^image_url:/);
  });
  it('rejects seed, negative_prompt, generate_audio and client prices', () => {
    expect(h({ seed: 1 })).toMatch(/^seed: not accepted/);
    expect(h({ negative_prompt: 'x' })).toMatch(/^negative_prompt: not accepted/);
    expect(h({ generate_audio: true })).toMatch(/^generate_audio: not accepted/);
    expect(h({ price: 1 })).toMatch(/^price:/);
    expect(h({ credits: 1 })).toMatch(/^credits:/);
  });
  it('bounds prompt, duration 3-10 integer, enums', () => {
    expect(run(H, { prompt: '', image_url: IMG })).toMatch(/^prompt:/);
    expect(h({ prompt: 'a'.repeat(20_000) })).toBe('ok');
    expect(h({ prompt: 'a'.repeat(20_001) })).toMatch(/^prompt: must be at most 20000/);
    expect(h({ duration: 2 })).toMatch(/^duration: must be at least 3/);
    expect(h({ duration: 11 })).toMatch(/^duration: must be at most 10/);
    expect(h({ duration: '5' })).toMatch(/^duration: must be an integer/);
    expect(h({ resolution: '2k' })).toMatch(/^resolution:/);
    expect(h({ aspect_ratio: '1:1' })).toMatch(/^aspect_ratio:/);
    expect(run(H, { prompt: 'x' })).toMatch(/^image_url: is required/);
  });
  it('prices by duration and resolution', () => {
    expect(model(H).validate({ prompt: 'x', image_url: IMG }, env).credits).toBe(64);
    expect(model(H).validate({ prompt: 'x', image_url: IMG, duration: 5, resolution: '4k' }, env).credits).toBe(120);
  });
});

describe('<vendorI>-edit', () => {
  const I = 'nano-banana-edit';
  const i = (p: Record<string, unknown>) => run(I, { prompt: 'x', image_urls: [IMG], ...p });
  it('accepts valid values and charges per image', () => {
    expect(i({ num_images: 4, aspect_ratio: '21:9', output_format: 'jpeg', resolution: '4K' })).toBe('ok');
    const q = model(I).validate({ prompt: 'x', image_urls: [IMG], num_images: 3 }, env);
    expect(q).toEqual({ credits: 45, outputCount: 3 });
  });
  it('rejects each rule', () => {
    expect(i({ style: 'x' })).toMatch(/^style: unknown parameter/);
    expect(i({ prompt: 'a'.repeat(2001) })).toMatch(/^prompt:/);
    expect(i({ image_urls: [IMG, IMG, IMG] })).toMatch(/^image_urls:/);
    expect(i({ num_images: 0 })).toMatch(/^num_images: must be at least 1/);
    expect(i({ num_images: 5 })).toMatch(/^num_images: must be at most 4/);
    expect(i({ num_images: 1.5 })).toMatch(/^num_images: must be an integer/);
    expect(i({ aspect_ratio: '2:1' })).toMatch(/^aspect_ratio:/);
    expect(i({ output_format: 'gif' })).toMatch(/^output_format:/);
    expect(i({ resolution: '1k' })).toMatch(/^resolution:/);
  });
});

describe('<vendorD>-imagine-image-edit', () => {
  const D = 'grok-imagine-image-edit';
  const d = (p: Record<string, unknown>) => run(D, { prompt: 'x', image_urls: [IMG], ...p });
  it('checks prompt, image count and enums', () => {
    expect(d({ resolution: '4k', output_format: 'png' })).toBe('ok');
    expect(d({ prompt: 'a'.repeat(2001) })).toMatch(/^prompt:/);
    expect(d({ image_urls: [IMG, IMG, IMG] })).toMatch(/^image_urls:/);
    expect(d({ resolution: '4K' })).toMatch(/^resolution:/);
    expect(d({ output_format: 'bmp' })).toMatch(/^output_format:/);
  });
});

describe('<vendorJ>-broll and <vendorC>-1-5-pro', () => {
  it('broll is strict with a required public image_url', () => {
    expect(run('vendorj-broll', { prompt: 'x', image_url: IMG, duration: 5 })).toMatch(/^duration: unknown parameter/);
    expect(run('vendorj-broll', { prompt: 'x' })).toMatch(/^image_url: is required/);
    expect(run('vendorj-broll', { prompt: 'x', image_url: 'ftp://cdn.example.com/a' })).toMatch(/^image_url:/);
    expect(run('vendorj-broll', { prompt: 'a'.repeat(2001), image_url: IMG })).toMatch(/^prompt:/);
  });
  it('1-5-pro allows duration 12 only and its aspect ratios', () => {
    const P = 'seedance-1-5-pro';
    expect(run(P, { prompt: 'x', image_url: IMG, aspect_ratio: '21:9', duration: 12 })).toBe('ok');
    expect(run(P, { prompt: 'x', duration: 10 })).toMatch(/^duration: the only allowed value is 12/);
    expect(run(P, { prompt: 'x', aspect_ratio: '2:3' })).toMatch(/^aspect_ratio:/);
    expect(run(P, { prompt: 'x', resolution: '720p' })).toMatch(/^resolution: unknown parameter/);
  });
});

describe('<vendorD>-imagine-video-1-5-r2v', () => {
  const R = 'grok-imagine-video-1-5-r2v';
  const r = (p: Record<string, unknown>) => run(R, { prompt: 'use <IMAGE_0>', reference_image_urls: [IMG, IMG], ...p });
  it('accepts repeats and an integer duration', () => {
    expect(r({ duration: 8, resolution: '1080p', aspect_ratio: '16:9', enable_safety_checker: false })).toBe('ok');
  });
  it('rejects string and fractional durations', () => {
    expect(r({ duration: '8' })).toMatch(/^duration: must be an integer/);
    expect(r({ duration: 8.5 })).toMatch(/^duration: must be an integer/);
  });
  it('rejects a blank prompt and missing references', () => {
    expect(r({ prompt: '   ' })).toMatch(/^prompt: must not be blank/);
    expect(run(R, { prompt: 'x' })).toMatch(/^reference_image_urls: is required/);
    expect(r({ enable_safety_checker: 'no' })).toMatch(/^enable_safety_checker:/);
  });
  it('prices by duration, resolution and image count', () => {
    const c = (p: Record<string, unknown>) =>
      model(R).validate({ prompt: 'x', reference_image_urls: [IMG], ...p }, env).credits;
    expect(c({ duration: 10 })).toBeGreaterThan(c({ duration: 5 }));
    expect(c({ resolution: '1080p' })).toBeGreaterThan(c({ resolution: '480p' }));
    expect(model(R).validate({ prompt: 'x', reference_image_urls: [IMG, IMG] }, env).credits).toBe(c({}) + 2);
  });
});

describe('<vendorK>-v3-edit', () => {
  const K = 'ideogram-v3-edit';
  const k = (p: Record<string, unknown>) => run(K, { prompt: 'x', image_url: IMG, ...p });
  it('accepts a preset or {width, height} integers and a palette', () => {
    expect(k({ image_size: 'square_hd', colors: [{ r: 0, g: 128, b: 255 }], strength: 0.5, style: 'auto' })).toBe('ok');
    expect(k({ image_size: { width: 1024, height: 768 } })).toBe('ok');
  });
  it('rejects bad image_size objects and colours', () => {
    expect(k({ image_size: { width: 1024 } })).toMatch(/^image_size.height: is required/);
    expect(k({ image_size: { width: 1024.5, height: 768 } })).toMatch(/^image_size.width: must be a positive integer/);
    expect(k({ image_size: { width: '1024', height: 768 } })).toMatch(/^image_size.width:/);
    expect(k({ image_size: 12 })).toMatch(/^image_size:/);
    expect(k({ colors: [{ r: 0, g: 0 }] })).toMatch(/^colors\[0\].b:/);
    expect(k({ colors: [{ r: 0, g: 0, b: 1.5 }] })).toMatch(/^colors\[0\].b:/);
    expect(k({ strength: 'high' })).toMatch(/^strength:/);
    expect(run(K, { prompt: 'x' })).toMatch(/^image_url: is required/);
  });
});

describe('other shapes', () => {
  it('<vendorC>-2-0-i2v takes a string or number duration', () => {
    const C = 'seedance-2-0-i2v';
    expect(run(C, { prompt: 'x', image_url: IMG, duration: '5', generate_audio: true, end_image_url: IMG })).toBe('ok');
    expect(run(C, { prompt: 'x', image_url: IMG, duration: 10 })).toBe('ok');
    expect(run(C, { prompt: 'x', image_url: IMG, duration: 'long' })).toMatch(/^duration:/);
    expect(run(C, { prompt: 'x', image_url: IMG, generate_audio: 'yes' })).toMatch(/^generate_audio:/);
  });
  it('<vendorA>-v2.6-edit charges max_images', () => {
    const A = 'wan-v2.6-edit';
    expect(model(A).validate({ prompt: 'x', image_urls: [IMG], max_images: 3 }, env)).toEqual({
      credits: 30,
      outputCount: 3,
    });
    expect(run(A, { prompt: 'x', image_urls: [IMG], max_images: 0 })).toMatch(/^max_images:/);
    expect(run(A, { prompt: 'x', image_urls: [IMG], image_size: { height: 5 } })).toMatch(/^image_size.width/);
  });
  it('<vendorE>-h3-max-3d-to-video needs a public video_url', () => {
    const E = 'vendore-h3-max-3d-to-video';
    expect(run(E, { video_url: VID, reference_image_urls: [IMG], max_generated_reference_images: 2 })).toBe('ok');
    expect(run(E, {})).toMatch(/^video_url: is required/);
    expect(run(E, { video_url: 'http://127.0.0.1/x.mp4' })).toMatch(/^video_url:/);
  });
  it('<vendorD>-video-t2v accepts only the priced durations', () => {
    expect(run('grok-video-t2v', { prompt: 'x', duration: 12 })).toMatch(/^duration: must be 10 or 15/);
  });
  it('text-to-image models need a non-empty prompt and accept the rest', () => {
    expect(run('flux-2-pro', { prompt: 'x', guidance: 3 })).toBe('ok');
    expect(run('imagen-4', {})).toMatch(/^prompt: is required/);
    expect(run('seedream-4', { prompt: '' })).toMatch(/^prompt:/);
  });
  it('extra edit variants need image references within their count', () => {
    expect(run('seedream-4-edit', { prompt: 'x', image_urls: Array(10).fill(IMG) })).toBe('ok');
    expect(run('seedream-4-edit', { prompt: 'x', image_urls: Array(11).fill(IMG) })).toMatch(/^image_urls:/);
    expect(run('flux-2-pro-edit', { prompt: 'x' })).toMatch(/^image_urls: is required/);
  });
  it('rejects user_id in params of any model', () => {
    expect(run('flux-2-pro', { prompt: 'x', user_id: 'u' })).toMatch(/^user_id:/);
  });
});
