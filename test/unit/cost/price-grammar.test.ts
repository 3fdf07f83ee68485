/**
 * The price grammar (src/paid/pricing/price-grammar.ts, price-parse.ts, price-bound.ts): one test per form, then a
 * table of wordings — the issue-18 review's hostile ones and others — each bounded correctly or unbounded.
 */
import { describe, expect, it } from 'vitest';
import { boundPrice, NO_USAGE, type PriceUsage } from '../../../src/paid/pricing/price-bound.js';
import { FORMS } from '../../../src/paid/pricing/price-grammar.js';
import { parsePrice, tokenize } from '../../../src/paid/pricing/price-parse.js';

const use = (u: Partial<PriceUsage>): PriceUsage => ({ ...NO_USAGE, ...u });
const credits = (text: string, u: Partial<PriceUsage> = {}) => {
  const b = boundPrice(text, use(u));
  return b.bounded ? b.credits : 'unbounded';
};

/** Per form: its example (from the table) priced for one call, and a second call that exercises its parts. */
const PER_FORM: Record<string, { example: number; more: [string, Partial<PriceUsage>, number] }> = {
  amount: { example: 150, more: ['0.5 API units', {}, 50] },
  // A figure without a unit word is read as API units (issue 27): 2 per reference image = 200 each.
  'per-unit': { example: 6, more: ['2 per reference image', { media: 3 }, 600] },
  tiered: {
    example: 30,
    more: [
      '8 credits per second at 720p (360p 4, 1080p 12, 4k 24)',
      { seconds: 5, settings: { resolution: '4k' } },
      120,
    ],
  },
  range: { example: 12, more: ['100-200', {}, 20_000] },
  'range-depending': {
    example: 64,
    more: ['2-64 credits per image depending on size and quality', { outputs: 2 }, 128],
  },
  'up-to': { example: 8, more: ['up to 8 credits per image', { outputs: 3 }, 24] },
  'duration-tiers': { example: 100, more: ['50 credits for 10 s, 100 credits for 15 s', { seconds: 10 }, 50] },
};

describe('every form of the grammar', () => {
  it('has a test case (a new form needs one)', () => {
    expect(FORMS.map((f) => f.name).sort()).toEqual(Object.keys(PER_FORM).sort());
  });

  it.each(FORMS.map((f) => [f.name, f] as const))('%s', (name, form) => {
    const parsed = parsePrice(form.example);
    expect(parsed).toMatchObject({ ok: true, terms: [{ form: name }] });
    expect(credits(form.example)).toBe(PER_FORM[name]!.example);
    const [text, usage, expected] = PER_FORM[name]!.more;
    expect(parsePrice(text)).toMatchObject({ ok: true, terms: [{ form: name }] });
    expect(credits(text, usage)).toBe(expected);
  });
});

/** [text, usage, credits or 'unbounded'] */
const WORDINGS: [string, Partial<PriceUsage>, number | 'unbounded'][] = [
  // The issue-18 review's wordings.
  ['12 credits per 5 seconds', { seconds: 10 }, 'unbounded'],
  ['30 credits per minute of video', { seconds: 60 }, 'unbounded'],
  ['10 credits per generated image', { outputs: 4 }, 40],
  ['20 credits per image; 4K images cost double', { settings: { resolution: '4K' } }, 'unbounded'],
  ['15 credits per image (2K: double, 4K: quadruple)', {}, 'unbounded'],
  ['15 credits per image at 1K (2K: double, 4K: quadruple)', {}, 'unbounded'],
  ['10 credits per image, 1080p x2', {}, 'unbounded'],
  ['8 credits per image, +50% for 4K', {}, 'unbounded'],
  ['8 credits per image +50% for 4K', {}, 'unbounded'],
  ['5 credits per image; HD +5', {}, 'unbounded'],
  ['HD +5', {}, 'unbounded'],
  ['3 credits per megapixel', {}, 'unbounded'],
  ['1 credit per frame', {}, 'unbounded'],
  ['10 credits per image, up to 4 images', {}, 'unbounded'],
  ['up to 4 images', {}, 'unbounded'],
  // The old reader's wordings that stay unbounded.
  ['12 credits per image at 1024x1024 auto quality; scales with size and quality', {}, 'unbounded'],
  ['from 15 credits per image', {}, 'unbounded'],
  ['starting at 5 credits', {}, 'unbounded'],
  ['12+ credits', {}, 'unbounded'],
  ['between 10 and 40 credits', {}, 'unbounded'],
  ['varies', {}, 'unbounded'],
  ['', {}, 'unbounded'],
  ['depends on duration and resolution', {}, 'unbounded'],
  ['2-64 credits per image depending on the moon', {}, 'unbounded'],
  ['64-2 credits per image', {}, 'unbounded'],
  ['$5 per image', {}, 'unbounded'],
  ['10 credits per image plus', {}, 'unbounded'],
  ['plus 10 credits', {}, 'unbounded'],
  ['10 credits per image or 20 per video', {}, 'unbounded'],
  ['80 credits per generation at 720p (2048x2048 160)', {}, 'unbounded'],
  // Bounded, exactly.
  ['10 credits per generation', {}, 10],
  ['10 credits per generation.', {}, 10],
  ['1,000 credits', {}, 1000],
  ['6 credits per second at 720p (480p 4,1080p 10)', { seconds: 5, settings: { resolution: '1080p' } }, 50],
  ['1 API credit unit per generation', {}, 100],
  ['20 credits per image', { outputs: 4 }, 80],
  ['10 credits/image', { outputs: 2 }, 20],
  ['10 credits per generation', { outputs: 3 }, 30],
  ['10 – 40 credits', {}, 40],
  ['6 credits per image plus 1 credit per reference image', { media: 10 }, 16],
  [
    '6 credits per second at 720p (480p 4, 1080p 10) plus 2 credits per reference image',
    { seconds: 5, media: 3, settings: { resolution: '1080p' } },
    56,
  ],
  // A term after "plus" has no unit word of its own: API units (issue 27), never the cheap reading.
  ['6 credits per image plus 1 per reference image', { media: 10 }, 1006],
  [
    '6 credits per second at 720p (480p 4, 1080p 10) plus 2 per reference image',
    { seconds: 5, media: 3, settings: { resolution: '1080p' } },
    650,
  ],
  ['15 credits per image at 1K (2K 20, 4K 30)', { outputs: 4, settings: { resolution: '4K' } }, 120],
  ['15 credits per image at 1K (2K 20, 4K 30)', { settings: { resolution: '1K' } }, 15],
  // No setting selects a tier: the dearest listed.
  ['15 credits per image at 1K (2K 20, 4K 30)', {}, 30],
  ['80 credits per generation at 720p (1080p 160)', {}, 160],
  ['50 credits for 10 s, 100 credits for 15 s', {}, 100],
  // A setting the tiers do not name: unbounded, never the dearest guess.
  [
    '8 credits per second at 720p (360p 4, 1080p 12, 4k 24)',
    { seconds: 5, settings: { resolution: '540p' } },
    'unbounded',
  ],
  ['80 credits per generation at 720p (1080p 160)', { settings: { resolution: '4k' } }, 'unbounded'],
  ['50 credits for 10 s, 100 credits for 15 s', { seconds: 12 }, 'unbounded'],
  // A value shaped like a tier under another name still selects (or fails to).
  ['80 credits per generation at 720p (1080p 160)', { settings: { quality: '2k' } }, 'unbounded'],
  ['12 credits per image at 1024x1024 (2048x2048 40)', { settings: { image_size: '2048x2048' } }, 40],
  // Quantities the call does not fix.
  ['8 credits per second', {}, 'unbounded'],
  ['20 credits per image', { outputs: undefined }, 'unbounded'],
];

describe('price wordings', () => {
  it.each(WORDINGS.map(([t, u, e]) => [JSON.stringify(t), JSON.stringify(u), e, t, u] as const))(
    '%s with %s → %s',
    (_t, _u, expected, text, usage) => {
      expect(credits(text, usage)).toBe(expected);
    },
  );

  it('an unbounded answer names the clause it could not read', () => {
    expect(boundPrice('20 credits per image; 4K images cost double', NO_USAGE)).toMatchObject({
      bounded: false,
      reason: expect.stringContaining('"20 credits per image ; 4k images cost double" matches no form'),
    });
  });

  it('the tokenizer drops nothing but spaces and one final full stop', () => {
    expect(tokenize('8 cr/img +50%.').map((t) => ('raw' in t ? t.raw : t.v))).toEqual([
      '8',
      'cr',
      '/',
      'img',
      '+',
      '50',
      '%',
    ]);
  });
});

describe('ambiguous texts the grammar accepts are unbounded, never read low (issue 18 review)', () => {
  const usage = (over: Partial<PriceUsage> = {}): PriceUsage => ({ ...NO_USAGE, ...over });
  it.each([
    ['15 credits per image at 1K (2K 20 credits, 4K 1 api unit)', usage({ settings: { resolution: '4k' } })],
    ['10 credits per image plus 1 api unit per reference image', usage({ media: 1 })],
    ['1.000 credits', usage()],
    ['1.000', usage()],
    ['12.500 per image', usage()],
    ['5 credits per image at 1K (1K 50)', usage({ settings: { resolution: '1k' } })],
  ])('%s', (text, u) => {
    expect(boundPrice(text, u).bounded).toBe(false);
  });

  it('a single API-unit figure is still read (×100)', () => {
    expect(boundPrice('0.5 api units per generation', usage())).toMatchObject({ bounded: true, credits: 50 });
  });
});

/**
 * Issue 27, finding 1: a figure without a unit word was read as displayed credits (the cheap reading), while the
 * spec writes enterprise prices as bare API units ("0.5 API credit units (50 displayed credits) per generation").
 * Every one below was bounded at 1/100 of this before.
 */
describe('a figure without a unit word: the dearer reading, API units ×100 (issue 27)', () => {
  it.each<[string, Partial<PriceUsage>, number]>([
    ['0.5 per generation', {}, 50],
    ['0.5 per generation', { outputs: 6 }, 300],
    ['0.1', {}, 10],
    ['0.06 per image', { outputs: 2 }, 12],
    ['0.5 for 10 s, 1.0 for 15 s', {}, 100],
    ['0.5 for 10 s, 1.0 for 15 s', { seconds: 10 }, 50],
    // The spec's own wording of <vendorD>-video-t2v.
    ['0.5 for 10 seconds and 1.0 for 15 seconds', {}, 100],
    ['0.5 for 10 seconds and 1.0 for 15 seconds', { seconds: 10 }, 50],
    ['0.5 for 10 seconds, and 1.0 for 15 seconds', { seconds: 15 }, 100],
    ['0.5', {}, 50],
    ['0.150 per image', {}, 15],
    ['200', {}, 20_000],
    ['1,000', {}, 100_000],
    ['up to 8 per image', {}, 800],
    ['15 per image at 1K (2K 20, 4K 30)', { settings: { resolution: '2K' } }, 2000],
    // A bare tier beside a tier with a unit word: each duration tier stands alone.
    ['50 credits for 10 s, 100 for 15 s', { seconds: 15 }, 10_000],
    ['50 credits for 10 s, 100 for 15 s', { seconds: 10 }, 50],
    // Tier figures under one unit word: the word covers them.
    ['15 credits per image at 1K (2K 20, 4K 30)', { settings: { resolution: '2K' } }, 20],
    ['0.5 api units for 10 s, 1 for 15 s', { seconds: 15 }, 100],
    ['0.06 api units per second plus 2 per reference image', { seconds: 5, media: 3 }, 630],
  ])('%s with %j → %d', (text, u, expected) => {
    expect(credits(text, u)).toBe(expected);
  });

  it('a bare decimal below 1 is never proof of displayed credits', () => {
    for (const text of ['0.5', '0.1', '0.06 per image', '0.5 per generation', '0.99 per call']) {
      const b = boundPrice(text, NO_USAGE);
      expect(b.bounded && b.credits >= 6, text).toBe(true);
      expect(b).toMatchObject({ detail: expect.stringContaining('API units') });
    }
  });

  it('where a bare figure proves nothing (shoppable packs), it is unbounded; a unit word still bounds', () => {
    expect(boundPrice('100', NO_USAGE, { bare: 'unbounded' })).toMatchObject({
      bounded: false,
      reason: expect.stringContaining('without a unit word'),
    });
    expect(boundPrice('100 credits', NO_USAGE, { bare: 'unbounded' })).toMatchObject({ bounded: true, credits: 100 });
  });
});

describe('settings the price cannot read (issue 27, low findings)', () => {
  it.each<[string, Partial<PriceUsage>]>([
    // A setting of another tier kind than the ones listed: the dearest listed tier is no bound of it.
    ['80 credits per generation at 720p (1080p 160)', { settings: { size: '2048x2048' } }],
    ['12 credits per image at 1024x1024 (2048x2048 40)', { settings: { resolution: '4k' } }],
    ['50 credits for 10 s, 100 credits for 15 s', { settings: { resolution: '1080p' } }],
    // A free string on an unpublished model that no tier reads.
    ['10 credits per image', { settings: { style: 'neon' }, unpublished: ['style'] }],
    ['15 credits per image at 1K (2K 20, 4K 30)', { settings: { style: 'neon' }, unpublished: ['style'] }],
  ])('%s with %j → unbounded', (text, u) => {
    expect(credits(text, u)).toBe('unbounded');
  });

  it('an unpublished setting a listed tier reads is priced by it', () => {
    expect(
      credits('15 credits per image at 1K (2K 20, 4K 30)', {
        settings: { resolution: '2k' },
        unpublished: ['resolution'],
      }),
    ).toBe(20);
  });
});
