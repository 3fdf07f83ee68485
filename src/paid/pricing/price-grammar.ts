/**
 * The closed grammar of price texts (the enterprise catalog's `credits`, a template's `credit`): the spec
 * types both as free text, so a quote may rely on one only when it matches, IN FULL, one of the forms below
 * (design.md §1 invariant 1, "fail closed"). This file is data: the vocabulary and the forms table.
 * `price-parse.ts` tokenizes a text and matches it against this table; `price-bound.ts` prices the result
 * for one call. A text is a sequence of terms joined by "plus" (the terms add up); every term must match one
 * form from its first token to its last. Anything else — another unit, a multiplier, a percentage, a clause
 * no form consumes — is not a price we can prove, and the caller quotes the call unbounded.
 * docs/pricing.md lists the same forms with their meaning; test/unit/cost/price-grammar.test.ts has one test
 * per form (and fails when a form is added without one).
 */

/**
 * What one unit of a term's amount is charged for. Every term is then multiplied by the outputs asked for, but
 * `image`: a bare "per image" may count the images made or the images sent (an image-to-video model, a shoppable
 * video's product photos, a template's image fields), so it counts the larger of the two (review 3 of issue 27).
 */
export type PriceUnit = 'call' | 'output' | 'image' | 'second' | 'media';

/** Kinds of tier labels: an output resolution (`720p`, `4k`), a pixel size (`1024x1024`), a duration (`10s`). */
export type LabelKind = 'resolution' | 'size' | 'seconds';

export interface TierLabel {
  kind: LabelKind;
  /** Lower case, no spaces: `4k`, `1024x1024`, `10s`. */
  value: string;
}

/** One priced amount of a term: displayed credits per unit, for the tier `label` when it has one. */
export interface PriceAmount {
  credits: number;
  label?: TierLabel;
  /**
   * No unit word covers this figure (`0.5 per generation`, the `1.0` of `0.5 for 10 s, 1.0 for 15 s`):
   * `credits` holds the dearer reading, API units (×100; spec convention 4 and the spec's own enterprise
   * prices are bare API units). `price-bound.ts` may refuse such a figure instead (shoppable packs).
   */
  bare?: boolean;
}

/** A matched term: every amount it names (several only for tiers). */
export interface PriceTerm {
  form: string;
  unit: PriceUnit;
  amounts: PriceAmount[];
}

/**
 * Word phrases of the vocabulary, each with what it means. Matched token by token, longest phrase first;
 * a word not listed here makes its term fail.
 */
export const CURRENCIES: Readonly<Record<string, number>> = {
  credit: 1,
  credits: 1,
  'displayed credits': 1,
  // Spec, general convention 4: 1 API credit unit = 100 displayed credits.
  'api unit': 100,
  'api units': 100,
  'api credit unit': 100,
  'api credit units': 100,
};

/** What a bare figure means: API units, the dearer of "displayed credits" and "API units". */
export const BARE_FACTOR = CURRENCIES['api units']!;

export const PER: readonly string[] = ['per', '/'];

/** Between the items of a duration-tier list ("0.5 for 10 seconds and 1.0 for 15 seconds", the spec's own). */
export const LIST_SEPARATORS: readonly string[] = [',', 'and', ', and'];

export const UNITS: Readonly<Record<string, PriceUnit>> = {
  generation: 'call',
  request: 'call',
  call: 'call',
  run: 'call',
  image: 'image',
  'generated image': 'output',
  'output image': 'output',
  video: 'output',
  second: 'second',
  sec: 'second',
  s: 'second',
  'reference image': 'media',
};

/** Settings a price range may say it depends on ("2-64 credits per image depending on size and quality"). */
export const SETTING_WORDS: readonly string[] = [
  'size',
  'quality',
  'resolution',
  'duration',
  'aspect ratio',
  'format',
  'settings',
  'model settings',
];

/** Spellings of "seconds" after a number ("for 10 s", "for 10 seconds"). */
export const SECOND_WORDS: readonly string[] = ['s', 'sec', 'secs', 'second', 'seconds'];

/** Pattern elements. Captures are named; `list` captures an array of its items' captures. */
export type Element =
  | { el: 'num'; as: string }
  | { el: 'lit'; text: string }
  | { el: 'phrase'; of: 'currency' | 'per' | 'unit' | 'setting' | 'seconds' | 'separator'; as?: string }
  | { el: 'label'; as: string }
  | { el: 'opt'; seq: readonly Element[] }
  | { el: 'list'; as: string; item: readonly Element[]; sep: readonly Element[] };

export type Captures = Record<string, unknown>;

export interface PriceForm {
  name: string;
  /** A text this form reads, with the credits it means for one call (docs/pricing.md shows both). */
  example: string;
  pattern: readonly Element[];
  /** The term, or undefined when the captures are inconsistent (then the term does not match). */
  build(c: Captures): PriceTerm | undefined;
}

const num = (as: string): Element => ({ el: 'num', as });
const lit = (text: string): Element => ({ el: 'lit', text });
const opt = (...seq: Element[]): Element => ({ el: 'opt', seq });
const currency: Element = opt({ el: 'phrase', of: 'currency', as: 'currency' });
const perUnit: Element[] = [
  { el: 'phrase', of: 'per' },
  { el: 'phrase', of: 'unit', as: 'unit' },
];

/**
 * A figure in displayed credits: by the unit word written with it (`own`), else by its term's (`term`: a range's
 * or a tier list's one word covers its figures), else bare — read as API units, the dearer reading.
 */
function amount(value: number, own: Captures, term?: Captures): PriceAmount {
  // A figure below 1 with no unit word of its own never takes the term's "credits" (issue 27: a bare decimal
  // below 1 is never proof of displayed credits; "15 credits per image at 1K (2K 0.2, 4K 0.3)").
  const inherited = value < 1 ? undefined : term?.currency;
  const word = (own.currency ?? inherited) as string | undefined;
  if (word === undefined) return { credits: value * BARE_FACTOR, bare: true };
  return { credits: value * CURRENCIES[word]! };
}
const unitOf = (c: Captures): PriceUnit => (c.unit === undefined ? 'call' : UNITS[c.unit as string]!);
const n = (c: Captures, key: string) => c[key] as number;

/** Tier labels of one term share a kind: "at 720p (1080p 160)" is one setting, "at 720p (2048x2048 9)" is not. */
function oneKind(amounts: PriceAmount[]): PriceAmount[] | undefined {
  const kinds = new Set(amounts.map((a) => a.label?.kind));
  return kinds.size === 1 ? amounts : undefined;
}

export const FORMS: readonly PriceForm[] = [
  {
    name: 'amount',
    example: '150 credits',
    pattern: [num('n'), currency],
    build: (c) => ({ form: 'amount', unit: 'call', amounts: [amount(n(c, 'n'), c)] }),
  },
  {
    name: 'per-unit',
    example: '6 credits per image',
    pattern: [num('n'), currency, ...perUnit],
    build: (c) => ({ form: 'per-unit', unit: unitOf(c), amounts: [amount(n(c, 'n'), c)] }),
  },
  {
    name: 'tiered',
    example: '15 credits per image at 1K (2K 20, 4K 30)',
    pattern: [
      num('n'),
      currency,
      ...perUnit,
      lit('at'),
      { el: 'label', as: 'at' },
      lit('('),
      {
        el: 'list',
        as: 'tiers',
        item: [{ el: 'label', as: 'label' }, opt(lit(':')), num('n'), currency],
        sep: [lit(',')],
      },
      lit(')'),
    ],
    build: (c) => {
      const tiers = (c.tiers as Captures[]).map((t) => ({ ...amount(n(t, 'n'), t, c), label: t.label as TierLabel }));
      const amounts = oneKind([{ ...amount(n(c, 'n'), c), label: c.at as TierLabel }, ...tiers]);
      return amounts && { form: 'tiered', unit: unitOf(c), amounts };
    },
  },
  {
    name: 'range',
    example: '10-12 credits per image',
    pattern: [num('lo'), lit('-'), num('hi'), currency, opt(...perUnit)],
    build: (c) =>
      n(c, 'lo') <= n(c, 'hi') ? { form: 'range', unit: unitOf(c), amounts: [amount(n(c, 'hi'), c)] } : undefined,
  },
  {
    name: 'range-depending',
    example: '2-64 credits per image depending on size and quality',
    pattern: [
      num('lo'),
      lit('-'),
      num('hi'),
      currency,
      ...perUnit,
      lit('depending on'),
      { el: 'list', as: 'on', item: [{ el: 'phrase', of: 'setting' }], sep: [{ el: 'lit', text: 'and' }] },
    ],
    build: (c) =>
      n(c, 'lo') <= n(c, 'hi')
        ? { form: 'range-depending', unit: unitOf(c), amounts: [amount(n(c, 'hi'), c)] }
        : undefined,
  },
  {
    name: 'up-to',
    example: 'up to 8 credits per image',
    pattern: [lit('up to'), num('n'), currency, opt(...perUnit)],
    build: (c) => ({ form: 'up-to', unit: unitOf(c), amounts: [amount(n(c, 'n'), c)] }),
  },
  {
    name: 'duration-tiers',
    example: '50 credits for 10 s, 100 credits for 15 s',
    pattern: [
      {
        el: 'list',
        as: 'tiers',
        item: [num('n'), currency, lit('for'), num('s'), { el: 'phrase', of: 'seconds' }],
        sep: [{ el: 'phrase', of: 'separator' }],
      },
    ],
    // Each tier stands alone: a bare figure in one is read as API units even when another names credits.
    build: (c) => ({
      form: 'duration-tiers',
      unit: 'call',
      amounts: (c.tiers as Captures[]).map((t) => ({
        ...amount(n(t, 'n'), t),
        label: { kind: 'seconds' as const, value: `${n(t, 's')}s` },
      })),
    }),
  },
];

/** The word joining terms that add up ("6 credits per second plus 2 per reference image"). */
export const TERM_JOINER = 'plus';
