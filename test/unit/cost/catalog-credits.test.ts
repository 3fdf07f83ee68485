import { describe, expect, it } from 'vitest';
import { boundFromCredits, type CreditUsage, parseCreditsText } from '../../../src/paid/pricing/catalog-credits.js';

/** [text, usage, expected credits or 'unbounded'] */
const CASES: [string, CreditUsage, number | 'unbounded'][] = [
  // flat
  ['10 credits per generation', {}, 10],
  ['50 credits', {}, 50],
  ['100', {}, 100],
  ['1,000 credits', {}, 1000],
  ['0.5 API units per generation', {}, 50],
  ['1 API credit unit', {}, 100],
  // per image × count
  ['20 credits per image', { count: 3 }, 60],
  ['10 credits/image', { count: 4 }, 40],
  // labelled tiers: the label the call uses, else the max
  ['15 credits per image at 1K (2K 20, 4K 30)', { count: 4, settings: ['4K'] }, 120],
  ['15 credits per image at 1K (2K 20, 4K 30)', { count: 2, settings: ['1k'] }, 30],
  ['15 credits per image at 1K (2K 20, 4K 30)', { count: 1 }, 30],
  ['8 credits per second at 720p (360p 4, 1080p 12, 4k 24)', { seconds: 10, settings: ['4k'] }, 240],
  ['8 credits per second at 720p (360p 4, 1080p 12, 4k 24)', { seconds: 8, settings: ['720p'] }, 64],
  ['8 credits per second at 720p (360p 4, 1080p 12, 4k 24)', { seconds: 5, settings: ['360p'] }, 20],
  ['8 credits per second at 720p (360p 4, 1080p 12, 4k 24)', { seconds: 5, settings: ['540p'] }, 120],
  ['80 credits per generation at 720p (1080p 160)', { settings: ['1080p'] }, 160],
  ['80 credits per generation at 720p (1080p 160)', {}, 160],
  ['price: 4k: 30, 1080p: 12', { settings: ['1080p'] }, 30],
  // labelled alternatives as separate clauses
  ['50 credits for 10 s, 100 credits for 15 s', { settings: ['10s'] }, 50],
  ['50 credits for 10 s, 100 credits for 15 s', { settings: ['15 s'] }, 100],
  ['50 credits for 10 s, 100 credits for 15 s', {}, 100],
  // additive terms
  [
    '6 credits per second at 720p (480p 4, 1080p 10) plus 2 per reference image',
    { seconds: 5, referenceImages: 3, settings: ['1080p'] },
    56,
  ],
  ['6 credits per image plus 1 per reference image', { count: 1, referenceImages: 2 }, 8],
  ['6 credits per second; 2 credits per reference image', { seconds: 10, referenceImages: 1 }, 62],
  ['100 credits per scene', { scenes: 3 }, 300],
  // ranges and caps
  ['10-40 credits per image', { count: 2 }, 80],
  ['10 – 40 credits', {}, 40],
  ['between 10 and 40 credits', {}, 40],
  ['up to 50 credits per image', { count: 2 }, 100],
  ['from 12 credits per image, up to 50', { count: 1 }, 50],
  ['2-64 credits per image depending on size and quality', { count: 1, settings: ['1024x1024'] }, 64],
  ['6 credits per second at 720p (480p 3, 1080p 12)', { seconds: 5.5, settings: ['720p'] }, 33],
  // no usable bound
  ['from 12 credits per image', {}, 'unbounded'],
  ['starting at 5 credits', {}, 'unbounded'],
  ['12+ credits', {}, 'unbounded'],
  [
    '12 credits per image at 1024x1024 auto quality; scales with size and quality',
    { settings: ['1024x1024', 'auto'] },
    'unbounded',
  ],
  ['depends on duration and resolution', {}, 'unbounded'],
  ['scales with size and quality', {}, 'unbounded'],
  ['', {}, 'unbounded'],
  ['varies', {}, 'unbounded'],
  // per-unit price without the count it needs
  ['8 credits per second', {}, 'unbounded'],
  ['2 credits per reference image', {}, 'unbounded'],
];

describe('boundFromCredits', () => {
  it.each(CASES)('%j with %j → %s', (text, usage, expected) => {
    const b = boundFromCredits(text, usage);
    if (expected === 'unbounded') {
      expect(b).toMatchObject({ bounded: false });
    } else {
      expect(b).toMatchObject({ bounded: true, credits: expected });
    }
  });

  it('never takes just the first number', () => {
    // The first number (15) is the cheapest tier: the old reader quoted 60 for 4 images at 4K.
    expect(boundFromCredits('15 credits per image at 1K (2K 20, 4K 30)', { count: 4, settings: ['4K'] })).toMatchObject(
      {
        credits: 120,
      },
    );
  });

  it('undefined and null texts are unbounded, never zero', () => {
    expect(boundFromCredits(undefined)).toMatchObject({ bounded: false });
    expect(boundFromCredits(null)).toMatchObject({ bounded: false });
  });
});

describe('parseCreditsText', () => {
  it('keeps every term with its unit and labels', () => {
    expect(parseCreditsText('6 credits per second at 720p (480p 4, 1080p 10) plus 2 per reference image')).toEqual({
      terms: [
        {
          unit: 'second',
          amounts: [
            { credits: 6, label: '720p' },
            { credits: 4, label: '480p' },
            { credits: 10, label: '1080p' },
          ],
          open: false,
          capped: false,
        },
        { unit: 'reference_image', amounts: [{ credits: 2 }], open: false, capped: false },
      ],
    });
  });

  it('returns undefined for texts without numbers', () => {
    expect(parseCreditsText('scales with size')).toBeUndefined();
  });
});
