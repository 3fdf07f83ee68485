import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../src/errors.js';
import { choosePack, matchOption, packCredits, packView, readPacks } from '../../tools/_shared/packs.js';

const simLike = [
  {
    value: 'beauty',
    label: 'Beauty',
    formats: ['hook', 'review'],
    aspect_ratios: ['9:16', '1:1'],
    durations: ['15', '30'],
    credits: { image: 50, video: 300 },
    defaults: { format: 'hook', aspect_ratio: '9:16', duration: '15' },
    _sim: true,
  },
  { value: 'tech', label: 'Tech', formats: [{ value: 'unboxing', label: 'Unboxing' }], durations: [10, 20] },
];

describe('readPacks', () => {
  it('reads a list of category objects', () => {
    const packs = readPacks(simLike);
    expect(packs).toEqual([
      {
        category: 'beauty',
        label: 'Beauty',
        formats: ['hook', 'review'],
        durations: ['15', '30'],
        aspectRatios: ['9:16', '1:1'],
        credits: { image: 50, video: 300 },
        defaults: { format: 'hook', aspect_ratio: '9:16', duration: '15' },
      },
      { category: 'tech', label: 'Tech', formats: ['unboxing'], durations: ['10', '20'], aspectRatios: [] },
    ]);
  });

  it('reads a wrapped list with shared settings, per-category overrides winning', () => {
    const packs = readPacks({
      categories: [
        { category: 'food', formats: ['recipe'] },
        { id: 'pets', formats: ['cute'], durations: ['5'] },
      ],
      durations: ['10', '20'],
      defaults: { aspect_ratio: '9:16' },
      credits: 80,
    });
    expect(packs.map((p) => [p.category, p.durations, p.defaults, p.credits])).toEqual([
      ['food', ['10', '20'], { aspect_ratio: '9:16' }, { image: 80, video: 80 }],
      ['pets', ['5'], { aspect_ratio: '9:16' }, { image: 80, video: 80 }],
    ]);
  });

  it('reads an object keyed by category, with formats as a list or inside an object', () => {
    const packs = readPacks({ data: { ugc: ['hook', 'review'], luxury: { formats: ['showcase'] }, defaults: {} } });
    expect(packs.map((p) => [p.category, p.formats])).toEqual([
      ['ugc', ['hook', 'review']],
      ['luxury', ['showcase']],
    ]);
  });

  it('takes a shared per-category map only for its own category', () => {
    const packs = readPacks({ categories: ['a', 'b'], formats: { a: ['x', 'y'] } });
    expect(packs.map((p) => [p.category, p.formats])).toEqual([
      ['a', ['x', 'y']],
      ['b', []],
    ]);
  });

  it('reads video prices per duration', () => {
    const [p] = readPacks([{ value: 'a', credits: { image: '40', video: { '15': 200, '30': '400 credits' } } }]);
    // Kept as given: the price grammar reads them when quoting (shoppableEstimate).
    expect(p?.credits).toEqual({ image: '40', byDuration: { '15': 200, '30': '400 credits' } });
  });

  it.each([null, undefined, 'x', 42, {}, [], [{ label: 'no id' }], { status: true, message: 'ok' }])(
    'yields no packs for %j',
    (raw) => {
      expect(readPacks(raw)).toEqual([]);
    },
  );

  it('keeps the first of duplicate categories', () => {
    expect(
      readPacks([
        { value: 'a', formats: ['1'] },
        { value: 'a', formats: ['2'] },
      ])[0]?.formats,
    ).toEqual(['1']);
  });
});

describe('matchOption', () => {
  it('returns the platform spelling', () => {
    expect(matchOption(['Hook', 'review'], 'Hook')).toBe('Hook');
    expect(matchOption(['Hook', 'review'], 'hook')).toBe('Hook');
    expect(matchOption(['15s', '30s'], '15')).toBe('15s');
    expect(matchOption(['15', '30'], '30 seconds')).toBe('30');
    expect(matchOption(['15', '30'], '20')).toBeUndefined();
    expect(matchOption(['15', '30'], '15abc')).toBeUndefined();
    expect(matchOption([], 'x')).toBeUndefined();
  });
});

describe('packCredits', () => {
  const [beauty, tech] = readPacks(simLike);

  it('gives the pack credits when listed, as the answer gave them', () => {
    expect(packCredits(beauty, 'image')).toEqual([50]);
    expect(packCredits(beauty, 'video', '15')).toEqual([300]);
  });

  it('issue 27: only the `credits` field is a price; `price`, `cost` and `credit` are not read', () => {
    for (const key of ['price', 'cost', 'credit']) {
      const [p] = readPacks([{ value: 'a', [key]: { image: 10, video: '20 credits' } }]);
      expect(packCredits(p, 'image'), key).toBeUndefined();
      expect(packCredits(p, 'video'), key).toBeUndefined();
    }
  });

  it('is undefined when the pack lists no price (the caller then assumes one)', () => {
    expect(packCredits(tech, 'image')).toBeUndefined();
    expect(packCredits(undefined, 'video', '10')).toBeUndefined();
  });

  it('prices a video by duration when the pack does', () => {
    const [p] = readPacks([{ value: 'a', credits: { video: { '15s': 200, '30s': 400 } } }]);
    expect(packCredits(p, 'video', '30')).toEqual([400]);
    // An unlisted duration: no tier prices it (unbounded); an omitted one: every listed price (the dearest applies).
    expect(packCredits(p, 'video', '45')).toEqual([]);
    expect(packCredits(p, 'video')).toEqual([200, 400]);
  });
});

describe('choosePack', () => {
  const packs = readPacks(simLike);
  const fails = (input: Parameters<typeof choosePack>[1]) => {
    try {
      choosePack(packs, input);
    } catch (e) {
      expect(e).toBeInstanceOf(UserInputError);
      return e as UserInputError;
    }
    throw new Error('expected a rejection');
  };

  it('returns the platform spelling of each choice', () => {
    const c = choosePack(packs, { category: 'beauty', format: 'Review', duration: '30s', aspect_ratio: '1:1' });
    expect([c.pack.category, c.format, c.duration, c.aspectRatio]).toEqual(['beauty', 'review', '30', '1:1']);
  });

  it('rejects an unknown category, listing the known ones', () => {
    const e = fails({ category: 'toys', format: 'hook' });
    expect(e.field).toBe('category');
    expect(e.rule).toContain('beauty, tech');
  });

  it('rejects a format the category does not allow', () => {
    const e = fails({ category: 'tech', format: 'hook' });
    expect(e.message).toBe(
      'format: unknown format \'hook\' for category "tech" — call list_shoppable_packs; allowed: unboxing',
    );
  });

  it('rejects a duration or aspect ratio the pack does not offer', () => {
    expect(fails({ category: 'beauty', format: 'hook', duration: '45' }).field).toBe('duration');
    expect(fails({ category: 'beauty', format: 'hook', aspect_ratio: '16:9' }).field).toBe('aspect_ratio');
  });

  it('does not enforce lists the platform did not give', () => {
    expect(choosePack(packs, { category: 'tech', format: 'unboxing', aspect_ratio: '4:5' }).aspectRatio).toBe('4:5');
    const [open] = readPacks([{ value: 'open' }]);
    expect(choosePack([open!], { category: 'open', format: 'any', duration: '7' })).toMatchObject({
      format: 'any',
      duration: '7',
    });
  });
});

describe('packView', () => {
  it('drops empty lists and flattens per-duration prices', () => {
    const [p] = readPacks([{ value: 'a', formats: ['x'], credits: { image: 5, video: { '15': 200 } } }]);
    expect(packView(p!)).toEqual({ category: 'a', formats: ['x'], credits: { image: 5, 'video:15': 200 } });
  });
});
