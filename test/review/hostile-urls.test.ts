/**
 * Issue 9, item 4: hostile URLs nowhere. A string a WHATWG URL parser reads as a fetchable URL after
 * trimming is guarded wherever an agent can put it into a paid request: run_model params at any key and
 * depth, template fields of a non-text type, and template text fields. Each refusal names the exact field
 * and sends nothing (0 POSTs in the simulator's log). The spellings are the ones a `^scheme://` prefix test
 * misses; the simulator (the platform) reads each one as a private address (test/sim/public-url.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimTemplate } from '../../src/sim/types.js';
import { billableExample } from '../helpers/examples.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

/** [label, value]; every value is a private or non-http(s) target once parsed. */
const HOSTILE: [string, string][] = [
  ['one slash', 'http:/169.254.169.254/latest/meta-data/'],
  ['backslashes', 'http:\\\\10.0.0.5\\a'],
  ['no slashes', 'http:10.0.0.1/a.png'],
  ['leading spaces', '   http://10.0.0.1/a.png'],
  ['leading no-break space', '\u00a0https://10.0.0.1/a.png'],
  ['leading newline', '\nhttp://127.0.0.1/a.png'],
  ['tab inside the scheme', 'ht\ttp://10.0.0.1/a.png'],
  ['upper-case scheme, no slashes, decimal host', 'HTTP:2130706433/a.png'],
  ['IPv4-mapped IPv6, one slash', 'https:/[::ffff:a9fe:a9fe]/latest'],
  ['blob of a private origin', 'blob:http://10.0.0.1/3f2a'],
  ['data URI outside a data-URI field', 'data:image/png;base64,iVBORw0KGgo='],
];

const POSTS = { method: 'POST' } as const;
const PUBLIC = 'https://cdn.example.com/a.png';

/** A template whose fields have types the spec does not show. */
const ODD_TEMPLATE = {
  id: '6f1c2a9e-3b7d-4c1a-9e55-0a1b2c3d4e99',
  title: 'Odd field types',
  credit: '100 credits',
  category: ['ads'],
  require_fields: {
    headline: { type: 'input', label: 'Headline' },
    clip: { type: 'video', label: 'Clip' },
    logo: { type: 'logo', label: 'Logo' },
  },
  thumbnail: 'https://cdn.example.com/t.png',
  _sim: true,
} as unknown as SimTemplate;

let h: Harness;
let take = 0;
beforeAll(async () => {
  // Many unbounded quotes (media under unpublished keys) count the per-call ceiling each: a day wide enough.
  h = await startHarness({ config: { maxCreditsPerDay: 1_000_000_000 } });
  h.sim.data.templates.push(ODD_TEMPLATE);
});
afterAll(async () => {
  await h.close();
});

const spotlight = () => h.sim.data.templates.find((t) => t.title === 'Product spotlight')!.id;

/** [location, field the error must name, tool and arguments with `v` placed there]. */
type Location = [string, string, (v: string) => { tool: string; args: Record<string, unknown> }];
const runModel = (params: Record<string, unknown>, model = 'seedream-4-edit') => ({
  tool: 'run_model',
  // A fresh prompt each call keeps the duplicate rule out of the positive cases.
  args: { model, params: { prompt: `a cat, take ${++take}`, image_urls: [PUBLIC], ...params } },
});
const templateVideo = (templateId: () => string, fields: Record<string, string>) => ({
  tool: 'create_template_video',
  args: { template_id: templateId(), fields },
});

const LOCATIONS: Location[] = [
  ['run_model params, top level', 'params.init_image', (v) => runModel({ init_image: v })],
  [
    'run_model params, nested object',
    'params.extra.source.image',
    (v) => runModel({ extra: { source: { image: v } } }),
  ],
  ['run_model params, array', 'params.refs[2]', (v) => runModel({ refs: [PUBLIC, PUBLIC, v] })],
  [
    'run_model params, object in an array',
    'params.refs[2].src',
    (v) => runModel({ refs: [{ src: PUBLIC }, { src: PUBLIC }, { src: v }] }),
  ],
  [
    'run_model params of a published (loose) model',
    'params.reference',
    (v) => ({
      tool: 'run_model',
      args: {
        model: `${h.sim.vendors.D}-video-t2v`,
        params: { prompt: `a cat surfing, take ${++take}`, duration: 10, reference: v },
      },
    }),
  ],
  [
    'template image field',
    'fields.product_image',
    (v) => templateVideo(spotlight, { product_name: `Bottle ${++take}`, product_image: v }),
  ],
  [
    'template field of a type the spec does not show (video)',
    'fields.clip',
    (v) => templateVideo(() => ODD_TEMPLATE.id, { headline: `Hi ${++take}`, clip: v, logo: PUBLIC }),
  ],
  [
    'template field of a type the spec does not show (logo)',
    'fields.logo',
    (v) => templateVideo(() => ODD_TEMPLATE.id, { headline: `Hi ${++take}`, clip: PUBLIC, logo: v }),
  ],
  [
    'template text field whose value is a URL',
    'fields.headline',
    (v) => templateVideo(() => ODD_TEMPLATE.id, { headline: v, clip: PUBLIC, logo: PUBLIC }),
  ],
];

const CASES = LOCATIONS.flatMap(([where, field, place]) =>
  HOSTILE.map(([label, value]) => [where, label, field, place, value] as const),
);

describe('a hostile URL spelling is refused everywhere, naming the field, with nothing sent', () => {
  it.each(CASES)('%s: %s', async (_where, _label, field, place, value) => {
    const before = h.sim.log.count(POSTS);
    const { tool, args } = place(value);
    const r = await h.call(tool, args);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(`Invalid argument "${field}": `);
    expect(h.sim.log.count(POSTS)).toBe(before);
  });
});

describe('public URLs and ordinary text still go through', () => {
  it.each(LOCATIONS)('%s: a public https URL is sent', async (_where, _field, place) => {
    const before = h.sim.log.count(POSTS);
    const { tool, args } = place(PUBLIC);
    const r = await h.call(tool, args);
    expect(text(r)).not.toMatch(/error/i);
    expect(structured(r).status).toBe('submitted');
    expect(h.sim.log.count(POSTS)).toBe(before + 1);
  });

  it.each([
    ['a label before a colon', 'Style:anime'],
    ['a caption with a colon', 'Close-up: a woman smiling'],
    ['a sentence that mentions a URL', 'see https://example.com for ideas'],
    ['an aspect ratio', '16:9'],
  ])('run_model params: %s is not taken for a URL', async (_n, value) => {
    const before = h.sim.log.count(POSTS);
    const r = await h.call('run_model', runModel({ style: value }).args);
    expect(structured(r).status).toBe('submitted');
    expect(h.sim.log.count(POSTS)).toBe(before + 1);
  });

  it('a template text field with a caption that has a colon is sent', async () => {
    const before = h.sim.log.count(POSTS);
    const r = await h.call('create_template_video', {
      template_id: ODD_TEMPLATE.id,
      fields: { headline: 'Sale: 50% off today', clip: PUBLIC, logo: PUBLIC },
    });
    expect(structured(r).status).toBe('submitted');
    expect(h.sim.log.count(POSTS)).toBe(before + 1);
  });
});

describe('data URIs only where the spec allows them', () => {
  const omni = () => `${h.sim.vendors.H}-omni-flash-1-1-i2v`;
  const DATA = 'data:image/png;base64,iVBORw0KGgo=';

  it('<vendorH>-omni-flash-1-1-i2v media fields accept a base64 data URI', async () => {
    const before = h.sim.log.count(POSTS);
    const r = await h.call('run_model', {
      model: omni(),
      params: { prompt: `a wave, take ${++take}`, image_url: DATA, end_image_url: DATA, duration: 3 },
    });
    expect(structured(r).status).toBe('submitted');
    expect(h.sim.log.count(POSTS)).toBe(before + 1);
  });

  it.each([
    ['another field of the same model', { extra_frame: DATA }, 'params.extra_frame'],
    ['nested under a media field name', { refs: { image_url: DATA } }, 'params.refs.image_url'],
  ])('<vendorH>-omni-flash-1-1-i2v: %s refuses it', async (_n, extra, field) => {
    const before = h.sim.log.count(POSTS);
    const r = await h.call('run_model', {
      model: omni(),
      params: { prompt: `a wave, take ${++take}`, image_url: PUBLIC, duration: 3, ...extra },
    });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(`Invalid argument "${field}": data URIs are not accepted here`);
    expect(h.sim.log.count(POSTS)).toBe(before);
  });

  it('a model without a published schema refuses it even under a *_url key', async () => {
    const before = h.sim.log.count(POSTS);
    const r = await h.call('run_model', runModel({ mask_url: DATA }).args);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('Invalid argument "params.mask_url": data URIs are not accepted here');
    expect(h.sim.log.count(POSTS)).toBe(before);
  });
});

/**
 * The typed URL fields of the other billable tools use the same guard on the raw value (a padded or
 * re-spelt URL is refused, so the value sent is the value checked). Already closed; kept as a regression
 * table over the same spellings. [tool, field named in the error, value → arguments patch]
 */
const TYPED: [string, string, (v: string) => Record<string, unknown>][] = [
  ['animate_gesture', 'image_url', (v) => ({ image_url: v })],
  ['create_product_video', 'image_url', (v) => ({ image_url: v })],
  ['create_product_video', 'voice_url', (v) => ({ voice_url: v, script: undefined, voice_id: undefined })],
  ['create_talking_video', 'voice_url', (v) => ({ voice_url: v })],
  ['create_custom_avatar', 'image', (v) => ({ image: v })],
  ['create_custom_avatar', 'voice', (v) => ({ voice: v })],
  ['create_shoppable_image', 'image_url', (v) => ({ image_url: v })],
  ['create_shoppable_video', 'image_urls[1]', (v) => ({ image_urls: [PUBLIC, v] })],
];

describe('typed URL fields of the other billable tools refuse the same spellings', () => {
  const cases = TYPED.flatMap(([tool, field, patch]) =>
    HOSTILE.map(([label, value]) => [tool, field, label, patch, value] as const),
  );
  it.each(cases)('%s %s: %s', async (tool, field, _label, patch, value) => {
    const before = h.sim.log.count(POSTS);
    const r = await h.call(tool, { ...billableExample(tool).args(h.sim, ++take), ...patch(value) });
    expect(r.isError).toBe(true);
    // The field path as the SDK's input validation names it (`image_urls.1: <rule>`) or as ours does.
    const path = field.replace(/\[(\d+)\]/g, '.$1');
    expect(text(r)).toMatch(new RegExp(`(${path}: |at ${field.replace(/[[\]]/g, '\\$&')})`));
    expect(h.sim.log.count(POSTS)).toBe(before);
  });
});
