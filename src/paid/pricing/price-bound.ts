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
  /** Media items the call sends (every list of media, every single media URL). */
  media: number;
  /** Setting values by param name, published defaults included (`resolution: "720p"`). */
  settings: Readonly<Record<string, string>>;
}

/** A call that sends nothing a price could depend on (a template, a model resource's example). */
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
  second: 'per second',
  media: 'per media item',
};

type Pick = { credits: number; why: string } | { unknown: string };

/**
 * The amount of a term for this call. One amount: it. Tiers: the tier every selecting setting names (a
 * setting naming no listed tier → unknown); with no selecting setting, the dearest listed tier.
 */
function pickAmount(t: PriceTerm, u: PriceUsage): Pick {
  const first = t.amounts[0]!;
  if (t.amounts.length === 1 && !first.label) return { credits: first.credits, why: '' };
  const kind = first.label!.kind;
  const chosen: { param: string; value: string }[] = [];
  if (kind === 'seconds') {
    if (u.seconds !== undefined) chosen.push({ param: 'duration', value: `${u.seconds}s` });
  } else {
    for (const [param, value] of Object.entries(u.settings)) {
      const v = value.toLowerCase();
      if (TIER_PARAMS[kind].includes(param) || SHAPE[kind].test(v)) chosen.push({ param, value: v });
    }
  }
  if (chosen.length === 0) {
    const dearest = t.amounts.reduce((a, b) => (b.credits > a.credits ? b : a));
    return { credits: dearest.credits, why: `no ${kind} sent: the dearest tier, ${dearest.label!.value}` };
  }
  let best: PriceAmount | undefined;
  for (const { param, value } of chosen) {
    const hit = t.amounts.find((a) => a.label?.value === value);
    if (!hit) {
      return { unknown: `${param} "${value}" is not a tier the price text names (${labels(t)})` };
    }
    if (!best || hit.credits > best.credits) best = hit;
  }
  return { credits: best!.credits, why: `at ${best!.label!.value}` };
}

const labels = (t: PriceTerm) => t.amounts.map((a) => a.label?.value).join(', ');

function quantity(unit: PriceUnit, u: PriceUsage): number | undefined {
  if (unit === 'second') return u.seconds;
  if (unit === 'media') return u.media;
  return 1;
}

/**
 * The most one call can be charged by `text`, or why the text does not bound it. Every term is multiplied
 * by the outputs asked for, whatever its unit: "per generation" with 4 outputs may mean 4 generations, and
 * the larger reading is the bound.
 */
/**
 * Readings the grammar accepts but cannot prove (issue 18 review), refused rather than read low:
 * - API units beside other figures: a figure without its own unit may be in API units (×100) or credits;
 * - `1.000`-shaped numbers: a European thousands separator (1000) or a decimal (1);
 * - a tier label listed twice with different figures.
 */
function ambiguity(text: string, terms: readonly PriceTerm[]): string | undefined {
  const amounts = terms.reduce((n, t) => n + t.amounts.length, 0);
  if (/\bapi\b/i.test(text) && amounts > 1)
    return 'mixes API units with other figures; the unit of each is not certain';
  if (/(?<![\d.])\d{1,3}\.\d{3}(?!\d)/.test(text)) return 'a number like "1.000" may be a thousand or one';
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

export function boundPrice(text: string | number | undefined | null, u: PriceUsage): PriceBound {
  const parsed = parsePrice(text);
  const quoted = JSON.stringify(text ?? '');
  if (!parsed.ok) return { bounded: false, reason: `price text ${quoted}: ${parsed.reason}` };
  const ambiguous = ambiguity(String(text), parsed.terms);
  if (ambiguous) return { bounded: false, reason: `price text ${quoted}: ${ambiguous}` };
  if (u.outputs === undefined) {
    return { bounded: false, reason: `price text ${quoted}: the number of outputs is not known before the job` };
  }
  let total = 0;
  const parts: string[] = [];
  for (const t of parsed.terms) {
    const pick = pickAmount(t, u);
    if ('unknown' in pick) return { bounded: false, reason: `price text ${quoted}: ${pick.unknown}` };
    const times = quantity(t.unit, u);
    if (times === undefined) {
      return { bounded: false, reason: `price text ${quoted} is per second and the duration is not known` };
    }
    total += pick.credits * times;
    const why = pick.why ? ` (${pick.why})` : '';
    parts.push(
      `${pick.credits} ${UNIT_WORD[t.unit]}${why}${t.unit === 'second' || t.unit === 'media' ? ` × ${times}` : ''}`,
    );
  }
  const outputs = u.outputs === 1 ? '' : `, × ${u.outputs} outputs`;
  // API-unit prices can be fractional: round up, the charge is never above the bound.
  return { bounded: true, credits: Math.ceil(total * u.outputs - 1e-9) || 0, detail: `${parts.join(' + ')}${outputs}` };
}
