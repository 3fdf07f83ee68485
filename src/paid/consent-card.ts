/**
 * The consent card: what a person approves, built once from the call itself so the three places that show it
 * cannot drift (issue 18 item 5):
 * - the confirmation form's message (2025 pushed elicitation, 2026 `input_required`): `cardText`;
 * - the job viewer App's consent card: the card rides in the quote's `_meta` (src/apps/link.ts);
 * - the `confirmation_required` answer's next step: `priceLine` only (model-facing text, so short).
 *
 * Every field of the exact request body is listed (run_model `params` one by one, every template field), since
 * each may change the price or what is made; a long value is folded onto its own block, never cut. Pure: no I/O,
 * no SDK.
 */
import { createHash } from 'node:crypto';
import type { Estimate } from '../jobs/envelope.js';

export interface CardInput {
  tool: string;
  /** The exact body that will be POSTed (`BillableToolSpec.request`). */
  body: unknown;
  estimate: Estimate;
  /** The spec's `billable.summary`: what will be made. */
  summary: string;
}

/** One field of the request body: `name` is its path (`params.prompt`, `scenes[0].script`). */
export interface CardField {
  name: string;
  /** The value in full, as it will be sent (a string as is; numbers, booleans and null as JSON). */
  value: string;
  /** Too long (or multi-line) to show inline: shown folded on its own block. */
  long: boolean;
}

export interface ConsentCard {
  tool: string;
  /** Cost with its bound: "at most N credits (…), proven from published prices" or "not published: …". */
  price: string;
  /** True when the figure is proven from published prices (`estimate.bounded`). */
  bounded: boolean;
  credits: number;
  /** How the figure was computed (`estimate.basis`). */
  basis: string;
  summary: string;
  fields: CardField[];
}

/** Inline up to this many characters; longer values get their own block (still in full). */
export const INLINE_MAX = 60;

const fmt = (n: number) => n.toLocaleString('en-US');
const apiUnits = (e: Estimate) => `${e.api_units} API credit unit${e.api_units === 1 ? '' : 's'}`;

/** Where an unpublished figure comes from (src/paid/pricing/estimate.ts `unboundedEstimate` names it in the basis). */
const unpublishedSource = (e: Estimate) =>
  /operator price table/.test(e.basis) ? "the operator's price table" : 'the per-call ceiling';

/** The cost and whether it is proven: one sentence, no basis (the `confirmation_required` next step uses it). */
export function priceLine(e: Estimate): string {
  if (e.bounded) return `at most ${fmt(e.credits)} credits (${apiUnits(e)}), proven from published prices`;
  return `not published: the platform publishes no price for this call; quoted at up to ${fmt(e.credits)} credits (${apiUnits(e)}) from ${unpublishedSource(e)}, not from the platform; the real charge is known only after the job starts`;
}

/** The card for one call. */
export function consentCard(input: CardInput): ConsentCard {
  const fields: CardField[] = [];
  flatten(input.body, '', fields);
  return {
    tool: input.tool,
    price: priceLine(input.estimate),
    bounded: input.estimate.bounded,
    credits: input.estimate.credits,
    basis: input.estimate.basis,
    summary: input.summary,
    fields,
  };
}

function flatten(value: unknown, path: string, out: CardField[]): void {
  if (value instanceof Uint8Array) {
    const sha = createHash('sha256').update(value).digest('hex');
    out.push(field(path, `file of ${fmt(value.byteLength)} bytes, sha256 ${sha}`));
  } else if (Array.isArray(value)) {
    if (value.length === 0) out.push(field(path, '[]'));
    for (const [i, v] of value.entries()) flatten(v, `${path}[${i}]`, out);
  } else if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0 && path) out.push(field(path, '{}'));
    for (const [k, v] of entries) flatten(v, path ? `${path}.${k}` : k, out);
  } else if (value !== undefined) {
    out.push(field(path || '(body)', typeof value === 'string' ? value : JSON.stringify(value)));
  }
}

function field(name: string, value: string): CardField {
  return { name, value, long: value.length > INLINE_MAX || value.includes('\n') };
}

/**
 * The form's message: everything on the card, as plain text (forms show text only). A long value is folded:
 * announced with its length on the field's line, then given in full on the following lines, indented.
 * `warning`: the resend warning (an identical earlier call of unknown outcome), first so it is read first.
 */
export function cardText(card: ConsentCard, warning?: string): string {
  const lines: string[] = [];
  if (warning) lines.push(warning, '');
  lines.push(`${card.tool}: ${card.summary}.`);
  lines.push(`Cost: ${card.price}.`);
  lines.push(`How: ${card.basis}.`);
  lines.push(`Sent to the platform (${card.fields.length} field${card.fields.length === 1 ? '' : 's'}):`);
  for (const f of card.fields) {
    if (!f.long) {
      lines.push(`- ${f.name}: ${f.value}`);
      continue;
    }
    lines.push(`- ${f.name} (${fmt(f.value.length)} characters, in full):`);
    for (const l of f.value.split('\n')) lines.push(`    ${l}`);
  }
  lines.push('Confirm to start the job.');
  return lines.join('\n');
}
