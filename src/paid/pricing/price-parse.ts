/**
 * Tokenizer and matcher for the price grammar (`price-grammar.ts`). A text parses only when every one of its
 * tokens is consumed by a form of the table; the parser never skips a token, never guesses a unit and never
 * throws: what it cannot read it reports, and the quote is then unbounded.
 */
import {
  type Captures,
  CURRENCIES,
  type Element,
  FORMS,
  type LabelKind,
  LIST_SEPARATORS,
  PER,
  type PriceTerm,
  SECOND_WORDS,
  SETTING_WORDS,
  TERM_JOINER,
  UNITS,
} from './price-grammar.js';

export type Token =
  | { t: 'num'; v: number; raw: string }
  | { t: 'label'; kind: Exclude<LabelKind, 'seconds'>; v: string }
  | { t: 'word'; v: string }
  | { t: 'punct'; v: string };

/**
 * Numbers (`12`, `0.5`, `1,000`), tier labels (`720p`, `4k`, `1024x1024`), words and single punctuation
 * characters. Whitespace separates; nothing else is dropped, so an unknown symbol (`%`, `$`, `×`) is a token
 * no form accepts. One trailing full stop is allowed (prose ends sentences with one).
 */
export function tokenize(raw: string): Token[] {
  const text = raw
    .toLowerCase()
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .trim()
    .replace(/\.$/, '');
  const out: Token[] = [];
  // `1,000` is one number only when each group is exactly three digits (`4,1080p` is `4`, `,`, `1080p`).
  const re = /(\s+)|(\d{1,3}(?:,\d{3})+(?![\d,])|\d+(?:\.\d+)?)(x\d+|[a-z]+)?|([a-z]+)|([\s\S])/gy;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[1]) continue;
    if (m[2] !== undefined) {
      const digits = m[2];
      const suffix = m[3];
      if (suffix !== undefined && /^x\d+$/.test(suffix)) out.push({ t: 'label', kind: 'size', v: digits + suffix });
      else if (suffix === 'p' || suffix === 'k') out.push({ t: 'label', kind: 'resolution', v: digits + suffix });
      else {
        out.push({ t: 'num', v: Number(digits.replace(/,/g, '')), raw: digits });
        // `10s`, `5sec`: the letters are a word of their own (a unit or not, as the forms decide).
        if (suffix !== undefined) out.push({ t: 'word', v: suffix });
      }
    } else if (m[4] !== undefined) out.push({ t: 'word', v: m[4] });
    else out.push({ t: 'punct', v: m[5]! });
  }
  return out;
}

const tokenText = (tok: Token): string => (tok.t === 'num' ? tok.raw : tok.v);

/** Phrases of the vocabulary, longest first so "api credit units" wins over "api". */
const PHRASES: Record<Extract<Element, { el: 'phrase' }>['of'], string[][]> = {
  currency: words(Object.keys(CURRENCIES)),
  per: words(PER),
  unit: words(Object.keys(UNITS)),
  setting: words(SETTING_WORDS),
  seconds: words(SECOND_WORDS),
  separator: words(LIST_SEPARATORS),
};

function words(phrases: readonly string[]): string[][] {
  return phrases.map((p) => p.split(' ')).sort((a, b) => b.length - a.length);
}

/** The end of `phrase` read at `i`, or -1. */
function matchWords(toks: readonly Token[], i: number, phrase: readonly string[]): number {
  for (let k = 0; k < phrase.length; k++) {
    const tok = toks[i + k];
    if (!tok || tok.t === 'num' || tok.t === 'label' || tok.v !== phrase[k]) return -1;
  }
  return i + phrase.length;
}

/**
 * Matches `seq` at `i`; returns the end index or -1, writing captures into `c`. Greedy: an optional part is
 * taken when it matches. The forms are written so that greed never starves a later element (no optional
 * part can begin with what follows it).
 */
function matchSeq(seq: readonly Element[], toks: readonly Token[], i: number, c: Captures): number {
  let at = i;
  for (const e of seq) {
    at = matchOne(e, toks, at, c);
    if (at < 0) return -1;
  }
  return at;
}

function matchOne(e: Element, toks: readonly Token[], i: number, c: Captures): number {
  const tok = toks[i];
  switch (e.el) {
    case 'num':
      if (tok?.t !== 'num' || !Number.isFinite(tok.v)) return -1;
      c[e.as] = tok.v;
      return i + 1;
    case 'label':
      if (tok?.t !== 'label') return -1;
      c[e.as] = { kind: tok.kind, value: tok.v };
      return i + 1;
    case 'lit':
      return matchWords(toks, i, e.text.split(' '));
    case 'phrase': {
      for (const phrase of PHRASES[e.of]) {
        const end = matchWords(toks, i, phrase);
        if (end >= 0) {
          if (e.as) c[e.as] = phrase.join(' ');
          return end;
        }
      }
      return -1;
    }
    case 'opt': {
      const inner: Captures = {};
      const end = matchSeq(e.seq, toks, i, inner);
      if (end < 0) return i;
      Object.assign(c, inner);
      return end;
    }
    case 'list': {
      const items: Captures[] = [];
      let at = i;
      for (;;) {
        const item: Captures = {};
        const end = matchSeq(e.item, toks, at, item);
        if (end < 0) return -1;
        items.push(item);
        at = end;
        const afterSep = matchSeq(e.sep, toks, at, {});
        // A separator not followed by another item ends the list before it (the caller then fails on it).
        if (afterSep < 0 || matchSeq(e.item, toks, afterSep, {}) < 0) break;
        at = afterSep;
      }
      c[e.as] = items;
      return at;
    }
  }
}

export type ParsedPrice = { ok: true; terms: PriceTerm[] } | { ok: false; reason: string };

/** One term: the first form that consumes all of `toks`. */
function parseTerm(toks: readonly Token[]): PriceTerm | undefined {
  for (const form of FORMS) {
    const c: Captures = {};
    if (matchSeq(form.pattern, toks, 0, c) !== toks.length) continue;
    const term = form.build(c);
    if (term) return term;
  }
  return undefined;
}

/** A price text as terms, or why it is not one (the caller then quotes unbounded). */
export function parsePrice(raw: string | number | undefined | null): ParsedPrice {
  if (raw === undefined || raw === null) return { ok: false, reason: 'no price text is published' };
  const toks = tokenize(String(raw));
  if (toks.length === 0) return { ok: false, reason: 'the price text is empty' };
  const parts: Token[][] = [[]];
  for (const tok of toks) {
    if (tok.t === 'word' && tok.v === TERM_JOINER) parts.push([]);
    else parts[parts.length - 1]!.push(tok);
  }
  const terms: PriceTerm[] = [];
  for (const part of parts) {
    const term = parseTerm(part);
    if (!term) {
      const clause = part.map(tokenText).join(' ') || `(empty around "${TERM_JOINER}")`;
      return { ok: false, reason: `"${clause}" matches no form of the price grammar (docs/pricing.md)` };
    }
    terms.push(term);
  }
  return { ok: true, terms };
}
