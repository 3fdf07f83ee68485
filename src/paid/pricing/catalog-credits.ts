/**
 * Reads a price text (the enterprise catalog's `credits`, a template's `credit`) into an upper bound for one
 * call. The spec types these as free text ("credit description"), so the reader takes EVERY number with its
 * unit and label, never just the first, and says "no bound" whenever the text does not cap the price:
 *
 *   "15 credits per image at 1K (2K 20, 4K 30)"  → per image; 15 if the call uses 1K, 30 if 4K, else 30
 *   "6 credits per second at 720p plus 2 per reference image" → additive terms, each × its count
 *   "50 credits for 10 s, 100 credits for 15 s"  → labelled alternatives of one term
 *   "10-40 credits per image", "up to 50 credits" → the upper end
 *   "from 12 credits", "12 per image; scales with size and quality", no numbers → unbounded
 *   "0.5 API units per generation"               → ×100 (spec convention 4)
 *
 * A labelled number applies only when the call uses that setting value (after normalising case and
 * spacing); otherwise the largest number of the term applies. A term with an explicit cap ("up to", a range)
 * is priced at its largest number whatever the labels say, because the labels then describe examples.
 */

export type CreditUnit = 'call' | 'image' | 'second' | 'scene' | 'reference_image';

export interface CreditAmount {
  /** Displayed credits per unit. */
  credits: number;
  /** Normalised setting value this amount applies to (`4k`, `10s`, `1024x1024`), if labelled. */
  label?: string;
}

export interface CreditTerm {
  unit: CreditUnit;
  amounts: CreditAmount[];
  /** A "from"/"scales with"/"depends on"-style marker applies and nothing caps it. */
  open: boolean;
  /** An explicit upper end ("up to N", "N-M"). */
  capped: boolean;
}

export interface ParsedCredits {
  terms: CreditTerm[];
}

/** What the call uses, for labels and multipliers. */
export interface CreditUsage {
  /** Setting values the call uses (defaults included), e.g. `['4k', '10s']`. */
  settings?: readonly (string | number)[];
  /** Outputs (num_images, max_images…); default 1. */
  count?: number;
  /** Seconds of output; undefined = unknown (a per-second price is then unbounded). */
  seconds?: number | undefined;
  /** Scenes; default 1. */
  scenes?: number;
  /** Reference images sent; undefined = unknown. */
  referenceImages?: number | undefined;
}

export type CreditBound = { bounded: true; credits: number; detail: string } | { bounded: false; reason: string };

const NUM = String.raw`\d+(?:\.\d+)?`;
const RANGE = new RegExp(String.raw`(${NUM})\s*(?:-|to)\s*(${NUM})`);
const AMOUNT_WITH_UNIT = new RegExp(
  String.raw`(?:(?:between|from)\s+)?(${NUM})(?:\s*(?:-|to|and)\s*(${NUM}))?\s*(api\s*(?:credit\s*)?units?|api\s+credits?|(?:displayed\s+)?credits?|cr\b)`,
);
const AMOUNT_BARE = new RegExp(String.raw`(?:^|\s)(${NUM})(?:\s*(?:-|to)\s*(${NUM}))?\s*(?=per\b|/|each\b|for\b|$)`);
const API_UNITS = /api\s*(credit\s*)?units?|api\s+credits?/;
const OPEN =
  /\b(from|starting at|starts at|at least|min(imum)?|or more|and up|scales? with|depends? on|depending on|varies|variable|based on|not fixed|plus tax)\b|\d\s*\+(?!\s*\d)/;
const CAP = new RegExp(String.raw`\b(?:up to|at most|max(?:imum)?|no more than|capped at)\s+(${NUM})`);

/** Lower case, one space, `1,000` → `1000`, dashes → `-`. */
function normaliseText(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/[–—]/g, '-')
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** `10 s`, `10 sec`, `10 seconds` → `10s`; `4K` → `4k`; spaces dropped. */
export function normaliseLabel(raw: string | number): string {
  const s = String(raw).toLowerCase().trim();
  const secs = new RegExp(`^(${NUM})\\s*(s|sec|secs|seconds?)$`).exec(s);
  if (secs) return `${Number(secs[1])}s`;
  return s.replace(/\s+/g, '');
}

interface Clause {
  text: string;
  parens: string[];
  /** Joined to the previous clause by "plus" / "+": always a new additive term. */
  additive: boolean;
}

/** Top-level split on `;`, `,` and `plus`/`+`, keeping parenthesised lists inside their clause. */
function clauses(text: string): Clause[] {
  const out: Clause[] = [];
  let depth = 0;
  let cur = '';
  let parens: string[] = [];
  let paren = '';
  let additive = false;
  const push = (nextAdditive: boolean) => {
    if (cur.trim() || parens.length) out.push({ text: cur.trim(), parens, additive });
    cur = '';
    parens = [];
    additive = nextAdditive;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '(' || ch === '[') {
      if (depth === 0) paren = '';
      else paren += ch;
      depth++;
      continue;
    }
    if ((ch === ')' || ch === ']') && depth > 0) {
      depth--;
      if (depth === 0) parens.push(paren);
      else paren += ch;
      continue;
    }
    if (depth > 0) {
      paren += ch;
      continue;
    }
    if (ch === ';' || (ch === ',' && !/\d/.test(text[i + 1] ?? ''))) {
      push(false);
      continue;
    }
    const rest = text.slice(i);
    const plus = /^(?: plus | \+ )/.exec(rest);
    if (plus) {
      push(true);
      i += plus[0].length - 1;
      continue;
    }
    cur += ch;
  }
  if (depth > 0 && paren) parens.push(paren);
  push(false);
  return out;
}

function unitOf(s: string): CreditUnit | undefined {
  if (/(per|\/|each)\s*(reference|ref)\b/.test(s)) return 'reference_image';
  if (/(per|\/)\s*(second|sec|s)\b/.test(s)) return 'second';
  if (/(per|\/|each)\s*(image|output|picture|photo|img)s?\b/.test(s)) return 'image';
  if (/(per|\/|each)\s*scenes?\b/.test(s)) return 'scene';
  if (/(per|\/|each)\s*(generation|video|request|call|job|run|clip|edit|template)s?\b/.test(s)) return 'call';
  return undefined;
}

/** The label a clause's main amount carries: `at 720p`, `for 10 s`, `at 1024x1024 …` (first token only). */
function mainLabel(s: string): string | undefined {
  const dur = new RegExp(`\\bfor (${NUM}\\s*(?:s|sec|secs|seconds?))\\b`).exec(s);
  if (dur) return normaliseLabel(dur[1]!);
  const at = /\b(?:at|for|in) ([a-z0-9][a-z0-9.:x]*)/.exec(s);
  if (at && /\d/.test(at[1]!)) return normaliseLabel(at[1]!);
  return undefined;
}

function amountOf(s: string): { credits: number; range: boolean } | undefined {
  const m = AMOUNT_WITH_UNIT.exec(s) ?? AMOUNT_BARE.exec(s);
  if (!m) return undefined;
  const hi = m[2] !== undefined ? Math.max(Number(m[1]), Number(m[2])) : Number(m[1]);
  return { credits: hi, range: m[2] !== undefined };
}

/** `360p 4`, `4k: 24`, `24 at 4k`, `2K 20 credits` → labelled amounts; a lone number is unlabelled. */
function parenAmounts(inner: string, factor: number): CreditAmount[] {
  const out: CreditAmount[] = [];
  for (const item of inner.split(/[,;]|\bor\b/)) {
    const s = item
      .trim()
      .replace(/\bcredits?\b|\bcr\b/g, '')
      .trim();
    if (!/\d/.test(s)) continue;
    const labelFirst = new RegExp(`^([a-z0-9.:x]+(?:\\s*(?:s|sec|seconds?))?)\\s*[:=]?\\s+(${NUM})$`).exec(s);
    const numFirst = new RegExp(`^(${NUM})\\s+(?:at|for|in)?\\s*([a-z0-9.:x ]+)$`).exec(s);
    const range = RANGE.exec(s);
    if (labelFirst && !/^\d+(\.\d+)?$/.test(labelFirst[1]!.trim()))
      out.push({ credits: Number(labelFirst[2]) * factor, label: normaliseLabel(labelFirst[1]!) });
    else if (numFirst) out.push({ credits: Number(numFirst[1]) * factor, label: normaliseLabel(numFirst[2]!) });
    else if (range) out.push({ credits: Math.max(Number(range[1]), Number(range[2])) * factor });
    else {
      // Unrecognised shape: every number in it still counts toward the maximum.
      for (const n of s.match(new RegExp(NUM, 'g')) ?? []) out.push({ credits: Number(n) * factor });
    }
  }
  return out;
}

/**
 * Every priced term of a text, or undefined when it holds no usable number at all.
 * Never throws: anything it cannot read makes the result open (unbounded), never cheaper.
 */
export function parseCreditsText(raw: string | undefined | null): ParsedCredits | undefined {
  if (raw === undefined || raw === null) return undefined;
  const text = normaliseText(String(raw));
  if (!/\d/.test(text)) return undefined;
  const terms: CreditTerm[] = [];
  let globalOpen = false;
  let lastUnit: CreditUnit = 'call';
  for (const c of clauses(text)) {
    const factor = API_UNITS.test(c.text) ? 100 : 1;
    const cap = CAP.exec(c.text);
    const main = cap ? { credits: Number(cap[1]), range: true } : amountOf(c.text);
    const alternatives = c.parens.flatMap((p) => parenAmounts(p, factor));
    const open = OPEN.test(c.text) && !main?.range;
    if (!main && alternatives.length === 0) {
      if (OPEN.test(c.text)) globalOpen = true;
      continue;
    }
    const unit: CreditUnit = unitOf(c.text) ?? lastUnit;
    lastUnit = unit;
    const amounts: CreditAmount[] = [];
    if (main) {
      const label = mainLabel(c.text);
      amounts.push({ credits: main.credits * factor, ...(label ? { label } : {}) });
    }
    amounts.push(...alternatives);
    const same = c.additive ? undefined : terms.find((t) => t.unit === unit);
    if (same) {
      same.amounts.push(...amounts);
      same.open ||= open;
      same.capped ||= main?.range ?? false;
    } else {
      terms.push({ unit, amounts, open, capped: main?.range ?? false });
    }
  }
  if (terms.length === 0) return undefined;
  for (const t of terms) if (globalOpen) t.open = true;
  for (const t of terms) if (t.capped) t.open = false;
  return { terms };
}

const UNIT_WORD: Record<CreditUnit, string> = {
  call: 'per call',
  image: 'per image',
  second: 'per second',
  scene: 'per scene',
  reference_image: 'per reference image',
};

/** The per-unit amount a call pays for one term: its labelled value when the call uses the label, else the max. */
function amountFor(t: CreditTerm, settings: Set<string>): { credits: number; why: string } {
  const max = Math.max(...t.amounts.map((a) => a.credits));
  if (t.capped) return { credits: max, why: 'upper end' };
  const matched = t.amounts.filter((a) => a.label !== undefined && settings.has(a.label));
  if (matched.length > 0) {
    const best = matched.reduce((a, b) => (b.credits > a.credits ? b : a));
    return { credits: best.credits, why: `at ${best.label}` };
  }
  return { credits: max, why: t.amounts.length > 1 ? 'largest listed' : '' };
}

/**
 * The most one call can be charged by `text`, or why the text gives no bound.
 * Counts multiply: outputs (per image), seconds, scenes, reference images.
 */
export function boundFromCredits(raw: string | undefined | null, usage: CreditUsage = {}): CreditBound {
  const parsed = parseCreditsText(raw);
  if (!parsed) return { bounded: false, reason: `price text ${JSON.stringify(raw ?? '')} has no number` };
  const open = parsed.terms.find((t) => t.open);
  if (open) return { bounded: false, reason: `price text ${JSON.stringify(raw)} gives no upper bound` };
  const settings = new Set((usage.settings ?? []).map(normaliseLabel));
  let total = 0;
  const parts: string[] = [];
  for (const t of parsed.terms) {
    const { credits, why } = amountFor(t, settings);
    let times: number | undefined;
    if (t.unit === 'call') times = 1;
    else if (t.unit === 'image') times = usage.count ?? 1;
    else if (t.unit === 'scene') times = usage.scenes ?? 1;
    else if (t.unit === 'second') times = usage.seconds;
    else times = usage.referenceImages;
    if (times === undefined) {
      return {
        bounded: false,
        reason: `price text ${JSON.stringify(raw)} is ${UNIT_WORD[t.unit]} and the ${t.unit === 'second' ? 'duration' : 'number of reference images'} is not known before the job`,
      };
    }
    total += credits * times;
    parts.push(`${credits} ${UNIT_WORD[t.unit]}${why ? ` (${why})` : ''}${t.unit === 'call' ? '' : ` × ${times}`}`);
  }
  // Fractional seconds or API-unit prices: round up, the charge is never above the bound.
  return { bounded: true, credits: Math.ceil(total - 1e-9), detail: parts.join(' + ') };
}
