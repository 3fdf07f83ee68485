/**
 * The consent summary sized for a chat (issue 29 item 4): for a campaign or a long request, what varies, grouped,
 * in at most `MAX_SUMMARY_LINES` lines, with where the full card is. Built from the consent card itself
 * (consent-card.ts: the same fields, price, bound and total the form, the App card and the approval page show),
 * so the summary cannot say something the card does not: it only groups and shortens. The request's fingerprint
 * (what a confirmation token is bound to) rides along, so a summary can be matched with its card and token.
 *
 * Read by the consent form's message (guard.ts), the token flow's next step (wording.ts via guard.ts), the Slack
 * blocks (src/slack/blocks.ts) and the events (approval.requested). Pure: no I/O, no SDK.
 */
import { type ConsentCard, cardText } from './consent-card.js';
import {
  FULL_CARD_BELOW,
  summaryCostLine,
  summaryFieldsLine,
  summaryFullCardLine,
  summaryHeadline,
  summaryLongValue,
  summaryMore,
  summarySameLine,
  summaryValuePreview,
  summaryVariesLine,
} from './wording.js';

/** At most this many lines: a chat message a person reads before deciding. */
export const MAX_SUMMARY_LINES = 10;
/** Each line at most this long (10 lines stay within a Slack text field's 3,000 characters). */
export const MAX_LINE = 290;
/** A value up to this long is shown inline; a longer one by its number (and a preview, where lines are left). */
export const SHORT_VALUE = 24;
/** A card with more fields than this is long: its consent form opens with the summary. */
export const LONG_CARD_FIELDS = 12;

/** Where the full card is, one step from the summary (the summary says which). */
export type FullCardAt =
  /** Right after the summary, in the same message (the consent form). */
  | { at: 'below' }
  /** The MCP App shown with this answer (job viewer or campaign board). */
  | { at: 'app' }
  /** The signed approval page. */
  | { at: 'page'; url: string }
  /** Ask the assistant: it lists the call's arguments, field by field. */
  | { at: 'request' };

export interface ChatSummaryOptions {
  /** The request's fingerprint (`src/paid/fingerprint.ts`): what the token is bound to. Shown as a short ref. */
  fingerprint?: string | undefined;
  /** Where the full card is; default: on request. Several: said in order. */
  fullCard?: FullCardAt[] | undefined;
}

/** A field that differs between items, with its distinct values in order of first appearance. */
export interface VaryingField {
  name: string;
  values: string[];
}

export interface ChatSummary {
  /** At most `MAX_SUMMARY_LINES` lines, each at most `MAX_LINE` characters. */
  lines: string[];
  text: string;
  tool: string;
  /** The card's total and bound, unchanged. */
  credits: number;
  bounded: boolean;
  price: string;
  /** Items of a bundle; 1 for a single call. */
  count: number;
  /** Items per tool, in order of first appearance. */
  tools: { tool: string; count: number }[];
  /** Fields whose value differs between items (a bundle), each with every distinct value. */
  varying: VaryingField[];
  /** Fields with one value in every item (a single call: all of its fields). */
  same: { name: string; value: string }[];
  /** Several varying fields that form every combination of their values (`count` = the product). */
  crossProduct: boolean;
  fingerprint?: string | undefined;
}

/** Shown for an item that does not have a field another item has. */
export const ABSENT = '(absent)';

interface Item {
  tool: string;
  fields: Map<string, string>;
}

const BUNDLE_FIELD = /^items\[(\d+)\]\.(tool|route|body(?:\.(.+)|(\[.*))?)$/;

/** A bundle's card (body `{items: [{tool, route, body}]}`, src/paid/bundle.ts) split into its items; else null. */
function bundleItems(card: ConsentCard): Item[] | null {
  const items: Item[] = [];
  for (const f of card.fields) {
    const m = BUNDLE_FIELD.exec(f.name);
    if (!m) return null;
    const index = Number(m[1]);
    items[index] ??= { tool: '', fields: new Map() };
    const item = items[index];
    if (m[2] === 'tool') item.tool = f.value;
    else item.fields.set(m[2] === 'route' ? 'route' : (m[3] ?? `body${m[4] ?? ''}`), f.value);
  }
  if (items.length === 0 || items.some((i) => i === undefined || i.tool === '')) return null;
  return items;
}

/** Whether a card is long enough for a chat to get the summary first: a bundle, or many fields. */
export function needsChatSummary(card: ConsentCard): boolean {
  return card.fields.length > LONG_CARD_FIELDS || bundleItems(card) !== null;
}

const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * The summary of one consent card.
 * @param card the card the form, the App and the approval page show (`consentCard`).
 */
export function chatConsentSummary(card: ConsentCard, opts: ChatSummaryOptions = {}): ChatSummary {
  const items = bundleItems(card) ?? [
    { tool: card.tool, fields: new Map(card.fields.map((f) => [f.name, f.value] as const)) },
  ];
  const bundle = items.length > 1 || bundleItems(card) !== null;
  const tools: ChatSummary['tools'] = [];
  for (const i of items) {
    const t = tools.find((x) => x.tool === i.tool);
    if (t) t.count++;
    else tools.push({ tool: i.tool, count: 1 });
  }
  const names: string[] = [];
  for (const i of items) for (const n of i.fields.keys()) if (!names.includes(n)) names.push(n);
  const varying: VaryingField[] = [];
  const same: ChatSummary['same'] = [];
  for (const name of names) {
    const values: string[] = [];
    for (const i of items) {
      const v = i.fields.get(name) ?? ABSENT;
      if (!values.includes(v)) values.push(v);
    }
    if (values.length > 1) varying.push({ name, values });
    else same.push({ name, value: values[0]! });
  }
  const product = varying.reduce((n, f) => n * f.values.length, 1);
  const crossProduct = varying.length > 1 && product === items.length && distinctCombos(items, varying);

  const fullCard = summaryFullCardLine(opts.fullCard ?? [{ at: 'request' }], opts.fingerprint?.slice(0, 12));
  const head = [summaryHeadline(card, bundle ? items.length : 1, tools), summaryCostLine(card.price)];
  const tail = [fullCard];
  const body: string[] = [];
  if (bundle) {
    if (varying.length > 0) body.push(summaryVariesLine(varying.map(shownField), crossProduct ? product : undefined));
    if (same.length > 0) body.push(...packed(summarySameLine(), same, 2));
  } else {
    body.push(...packed(summaryFieldsLine(same.length), same, MAX_SUMMARY_LINES - head.length - tail.length));
  }
  // Lines left: previews of the long varying values ("script 2: "Your coffee…" (212 characters)").
  const room = MAX_SUMMARY_LINES - head.length - body.length - tail.length;
  const previews: string[] = [];
  const longValues = varying.flatMap((f) =>
    shortValues(f) ? [] : f.values.map((v, n) => ({ name: f.name, n: n + 1, v })),
  );
  for (const [k, p] of longValues.entries()) {
    if (previews.length === room - 1 && longValues.length - k > 1) {
      previews.push(summaryMore(longValues.length - k));
      break;
    }
    if (previews.length === room) break;
    previews.push(summaryValuePreview(p.name, p.n, clip(oneLine(p.v), 60), p.v.length));
  }
  const lines = [...head, ...body, ...previews, ...tail].map((l) => clip(l, MAX_LINE));
  return {
    lines,
    text: lines.join('\n'),
    tool: card.tool,
    credits: card.credits,
    bounded: card.bounded,
    price: card.price,
    count: bundle ? items.length : 1,
    tools,
    varying,
    same,
    crossProduct,
    ...(opts.fingerprint ? { fingerprint: opts.fingerprint } : {}),
  };
}

const shortValues = (f: VaryingField) => f.values.length <= 6 && f.values.every((v) => v.length <= SHORT_VALUE);

/** A varying field as the Varies line names it: its short values, or their numbers when long or many. */
function shownField(f: VaryingField): string {
  if (shortValues(f)) return `${f.name} ${f.values.join(', ')}`;
  return `${f.name} ${f.values.length === 2 ? '1, 2' : `1-${f.values.length}`}`;
}

/** Every item is a different combination of the varying values (with the product check: every combination). */
function distinctCombos(items: Item[], varying: VaryingField[]): boolean {
  const seen = new Set(items.map((i) => JSON.stringify(varying.map((f) => i.fields.get(f.name) ?? ABSENT))));
  return seen.size === items.length;
}

/** `label` then "name value · name value …" over at most `maxLines` lines; what does not fit is counted. */
function packed(label: string, fields: { name: string; value: string }[], maxLines: number): string[] {
  const parts = fields.map((f) =>
    f.value.length <= SHORT_VALUE * 2 && !f.value.includes('\n')
      ? `${f.name} ${f.value}`
      : summaryLongValue(f.name, f.value.length),
  );
  const lines: string[] = [];
  let line = label;
  let first = true;
  for (const [k, p] of parts.entries()) {
    const left = parts.length - k;
    const last = lines.length === maxLines - 1;
    // The last line keeps room for "… and N more fields" when something is still to come.
    const reserve = last && left > 1 ? summaryMore(left - 1).length + 3 : 0;
    const next = `${line}${first ? ' ' : ' · '}${p}`;
    if (next.length + reserve <= MAX_LINE) {
      line = next;
      first = false;
      continue;
    }
    if (last) return [...lines, `${line} · ${summaryMore(left)}`];
    lines.push(line);
    line = `  ${p}`;
    first = false;
  }
  return [...lines, line];
}

/**
 * The consent form's message: the card as text (`cardText`), and for a campaign or a long request the summary
 * first, then the full card below it (the form is where the person consents: every field stays in it).
 */
export function consentFormText(
  card: ConsentCard,
  opts: { warning?: string | undefined; fingerprint: string },
): string {
  if (!needsChatSummary(card)) return cardText(card, opts.warning);
  const summary = chatConsentSummary(card, { fingerprint: opts.fingerprint, fullCard: [{ at: 'below' }] });
  return [...(opts.warning ? [opts.warning, ''] : []), summary.text, '', FULL_CARD_BELOW, cardText(card)].join('\n');
}

/** The token flow's summary (`confirmation_required` next step): the full card is on the App's card or on request. */
export function tokenFlowSummary(card: ConsentCard, fingerprint: string): string | undefined {
  if (!needsChatSummary(card)) return undefined;
  return chatConsentSummary(card, { fingerprint, fullCard: [{ at: 'app' }, { at: 'request' }] }).text;
}
