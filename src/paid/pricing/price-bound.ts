/**
 * Prices one call from a parsed price text (`price-parse.ts`). Bounded only when every term's quantity and
 * tier is known from what the call sends (or from a published default); otherwise it says what is missing,
 * and the caller quotes the call unbounded (design.md §1 invariant 1: a guess is never a bound).
 */
import type { LabelKind, PriceAmount, PriceTerm, PriceUnit } from './price-grammar.js';
import { parsePrice } from './price-parse.js';

/** What a call uses that a price may depend on. Built by the tool from its validated input. */
export interface PriceUsage {
  /** Outputs asked for (product of every count the call sends); undefined = not known before the job. */
  outputs: number | undefined;
  /** Output seconds; undefined = not known before the job. */
  seconds: number | undefined;
  /** Media items the call sends (every list of media, every single media URL); undefined = not known here. */
  media: number | undefined;
  /** Setting values by param name, published defaults included (`resolution: "720p"`). */
  settings: Readonly<Record<string, string>>;
  /**
   * Settings whose effect on the price nobody publishes (a free string on an unpublished model): bounded only
   * when a listed tier of the price reads them, never assumed price-neutral.
   */
  unpublished?: readonly string[];
}

/** How to read a figure no unit word covers. */
export interface PriceReading {
  /**
   * `api-units` (default): the dearer reading, ×100 (the spec writes enterprise prices as bare API units).
   * `unbounded`: no bare figure is proof (a response whose field and unit nobody publishes: shoppable packs).
   */
  bare?: 'api-units' | 'unbounded';
}

/** A call that sends nothing a price could depend on (a model resource's example). */
export const NO_USAGE: PriceUsage = { outputs: 1, seconds: undefined, media: 0, settings: {} };

export type PriceBound = { bounded: true; credits: number; detail: string } | { bounded: false; reason: string };

/** Param names that select a tier of each kind, beside any param whose value has the label's shape. */
const TIER_PARAMS: Record<Exclude<LabelKind, 'seconds'>, readonly string[]> = {
  resolution: ['resolution'],
  size: ['size', 'image_size'],
};
const SHAPE: Record<Exclude<LabelKind, 'seconds'>, RegExp> = {
  resolution: /^\d+[pk]$/,
  size: /^\d+x\d+$/,
};

const UNIT_WORD: Record<PriceUnit, string> = {
  call: 'per call',
  output: 'per output',
  image: 'per image',
  second: 'per second',
  media: 'per media item',
};

type Pick = { credits: number; why: string; read: string[] } | { unknown: string };

/** The tier kinds a setting may select (by its name or by its value's shape). */
function kindsOf(param: string, value: string): Exclude<LabelKind, 'seconds'>[] {
  const v = value.toLowerCase();
  return (['resolution', 'size'] as const).filter((k) => TIER_PARAMS[k].includes(param) || SHAPE[k].test(v));
}

/**
 * The amount of a term for this call. One amount: it. Tiers: the tier every selecting setting names (a
 * setting naming no listed tier → unknown); with no selecting setting, the dearest listed tier. A setting
 * that selects tiers of another kind than those listed (`resolution: "4k"` against size tiers) → unknown:
 * the price then depends on something the text does not price, and the dearest tier of the listed kind is
 * no bound of it.
 */
function pickAmount(t: PriceTerm, u: PriceUsage): Pick {
  const first = t.amounts[0]!;
  if (t.amounts.length === 1 && !first.label) return { credits: first.credits, why: '', read: [] };
  const kind = first.label!.kind;
  const chosen: { param: string; value: string }[] = [];
  if (kind === 'seconds') {
    if (u.seconds !== undefined) chosen.push({ param: 'duration', value: `${u.seconds}s` });
  }
  for (const [param, value] of Object.entries(u.settings)) {
    const kinds = kindsOf(param, value);
    if (kind !== 'seconds' && kinds.includes(kind)) chosen.push({ param, value: value.toLowerCase() });
    else if (kinds.length > 0) {
      return { unknown: `${param} "${value}" is a ${kinds[0]}, and the price text lists ${kind} tiers (${labels(t)})` };
    }
  }
  if (chosen.length === 0) {
    const dearest = t.amounts.reduce((a, b) => (b.credits > a.credits ? b : a));
    return { credits: dearest.credits, why: `no ${kind} sent: the dearest tier, ${dearest.label!.value}`, read: [] };
  }
  let best: PriceAmount | undefined;
  for (const { param, value } of chosen) {
    const hit = t.amounts.find((a) => a.label?.value === value);
    if (!hit) {
      return { unknown: `${param} "${value}" is not a tier the price text names (${labels(t)})` };
    }
    if (!best || hit.credits > best.credits) best = hit;
  }
  return { credits: best!.credits, why: `at ${best!.label!.value}`, read: chosen.map((c) => c.param) };
}

const labels = (t: PriceTerm) => t.amounts.map((a) => a.label?.value).join(', ');

/**
 * How many times a term is charged, outputs included; undefined = not known before the job. `imageIsOutput`: the
 * text prices the images sent in a term of their own ("6 credits per image plus 1 credit per reference image"),
 * so its bare "per image" is the images made.
 */
function quantity(unit: PriceUnit, u: PriceUsage, outputs: number, imageIsOutput: boolean): number | undefined {
  if (unit === 'second') return u.seconds === undefined ? undefined : u.seconds * outputs;
  if (unit === 'media') return u.media === undefined ? undefined : u.media * outputs;
  // "per image" alone: the images made or the images sent, whichever reading is dearer.
  if (unit === 'image' && !imageIsOutput) return u.media === undefined ? undefined : Math.max(outputs, u.media);
  return outputs;
}

/**
 * The most one call can be charged by `text`, or why the text does not bound it. Every term is multiplied
 * by the outputs asked for, whatever its unit: "per generation" with 4 outputs may mean 4 generations, and
 * the larger reading is the bound. A bare "per image" counts the larger of the outputs and the media sent.
 */
/**
 * Readings the grammar accepts but cannot prove (issues 18 and 27 reviews), refused rather than read low:
 * - a text naming both displayed credits and API units: which word covers which figure is not certain;
 * - `1.000`-shaped numbers: a European thousands separator (1000) or a decimal (1);
 * - a tier label listed twice with different figures.
 */
function ambiguity(text: string, terms: readonly PriceTerm[]): string | undefined {
  if (/\bapi\b/i.test(text) && /\bcredits?\b(?!\s+units?\b)/i.test(text.replace(/\bapi\s+credits?\b/gi, 'api')))
    return 'names both displayed credits and API units; the unit of each figure is not certain';
  // A lone leading 0 is never a thousands group: "0.150" is a decimal.
  if (/(?<![\d.])[1-9]\d{0,2}\.\d{3}(?!\d)/.test(text)) return 'a number like "1.000" may be a thousand or one';
  for (const t of terms) {
    const seen = new Map<string, number>();
    for (const a of t.amounts) {
      if (!a.label) continue;
      const key = `${a.label.kind}:${String(a.label.value).toLowerCase()}`;
      if (seen.has(key) && seen.get(key) !== a.credits) return `the tier ${String(a.label.value)} is listed twice`;
      seen.set(key, a.credits);
    }
  }
  return undefined;
}

export function boundPrice(
  text: string | number | undefined | null,
  u: PriceUsage,
  reading: PriceReading = {},
): PriceBound {
  const parsed = parsePrice(text);
  const quoted = JSON.stringify(text ?? '');
  if (!parsed.ok) return { bounded: false, reason: `price text ${quoted}: ${parsed.reason}` };
  const ambiguous = ambiguity(String(text), parsed.terms);
  if (ambiguous) return { bounded: false, reason: `price text ${quoted}: ${ambiguous}` };
  const bare = parsed.terms.some((t) => t.amounts.some((a) => a.bare));
  if (bare && reading.bare === 'unbounded') {
    return { bounded: false, reason: `price text ${quoted}: a figure without a unit word proves no price here` };
  }
  if (u.outputs === undefined) {
    return { bounded: false, reason: `price text ${quoted}: the number of outputs is not known before the job` };
  }
  const imageIsOutput = parsed.terms.some((t) => t.unit === 'media');
  let total = 0;
  const parts: string[] = [];
  const read = new Set<string>();
  for (const t of parsed.terms) {
    const pick = pickAmount(t, u);
    if ('unknown' in pick) return { bounded: false, reason: `price text ${quoted}: ${pick.unknown}` };
    for (const p of pick.read) read.add(p);
    const times = quantity(t.unit, u, u.outputs, imageIsOutput);
    if (times === undefined) {
      const missing = t.unit === 'second' ? 'the duration' : 'the number of media items the call sends';
      return { bounded: false, reason: `price text ${quoted} is ${UNIT_WORD[t.unit]} and ${missing} is not known` };
    }
    total += pick.credits * times;
    const why = pick.why ? ` (${pick.why})` : '';
    parts.push(`${pick.credits} ${UNIT_WORD[t.unit]}${why}${times === 1 ? '' : ` × ${times}`}`);
  }
  const unread = (u.unpublished ?? []).filter((p) => !read.has(p));
  if (unread.length > 0) {
    return {
      bounded: false,
      reason: `params.${unread[0]}: its effect on the price is not published, and no tier of ${quoted} names it`,
    };
  }
  const outputs = `${u.outputs === 1 ? '' : ` (${u.outputs} outputs)`}${bare ? '; figures without a unit word read as API units (×100)' : ''}`;
  // API-unit prices can be fractional: round up, the charge is never above the bound.
  return { bounded: true, credits: Math.ceil(total - 1e-9) || 0, detail: `${parts.join(' + ')}${outputs}` };
}
