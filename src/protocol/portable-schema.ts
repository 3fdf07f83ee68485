/**
 * Tool schemas as sent in tools/list, in the JSON Schema subset every major function-calling provider accepts
 * (OpenAI strict function calling, Gemini function declarations; the lint is
 * test/contract/schema-portability.test.ts). Validation is untouched: the zod schema still enforces every rule
 * server-side and its error names the field and the rule. Only the JSON Schema view of an input schema changes:
 *
 * - no root `$schema`: SDK v2 emits zod's 2020-12 dialect URI, which OpenAI strict mode and Gemini reject;
 * - `exclusiveMinimum`/`exclusiveMaximum` (not in Gemini's Schema object) become `minimum`/`maximum`: exact
 *   for integers (x + 1), one point looser for numbers (zod still refuses the bound itself);
 * - no `propertyNames` (a JSON object's keys are strings anyway; neither provider accepts it);
 * - no `minLength`/`maxLength` (outside OpenAI strict's documented subset) and no `default` (likewise):
 *   length caps stay rules in zod (an over-long value is a free field error naming the limit), a default is
 *   appended to the field's description so the model still knows it. Both also cost every host tokens.
 * - every bound is also written into its field's description, derived here from the same schema node
 *   (`boundText`: "1-50", "≤2000 chars", "1-4 items"), so no description can drift from its rule: hosts strip
 *   keywords before the model sees them (Codex removes minimum, maximum, pattern, maxItems; mcp-notes.md §9),
 *   and the length keywords are dropped above. test/contract/schema-portability.test.ts checks every bounded
 *   field's description names its numbers.
 *
 * Output schemas only lose the root `$schema`: they are not model-facing, and clients validate
 * `structuredContent` against them.
 */

interface JsonSchemaConverter {
  input(options: unknown): Record<string, unknown>;
  output(options: unknown): Record<string, unknown>;
}
interface StandardProps {
  jsonSchema?: JsonSchemaConverter;
  [k: string]: unknown;
}
type Json = Record<string, unknown>;

function withoutDialect(json: Json): Json {
  const { $schema: _dialect, ...rest } = json;
  return rest;
}

/** Keywords dropped from the model-facing view (each still enforced by zod). */
const DROPPED = new Set(['propertyNames', 'minLength', 'maxLength', 'default']);
/** Keywords whose value is a map of subschemas / a list of subschemas / one subschema. */
const SCHEMA_MAPS = new Set(['properties', '$defs']);
const SCHEMA_LISTS = new Set(['anyOf', 'allOf', 'oneOf', 'prefixItems']);
const SCHEMA_ONE = new Set(['items', 'additionalProperties', 'not']);

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
/** `lo-hi`, or `lo to hi` when a minus sign would make the dash ambiguous. */
const span = (lo: number, hi: number) => (lo < 0 ? `${lo} to ${hi}` : `${lo}-${hi}`);

/** Inclusive numeric bounds of a node (an integer's exclusive bound becomes the next integer, as on the wire). */
function numericBounds(node: Json): { lo?: number; hi?: number; loOpen: boolean; hiOpen: boolean } {
  const integer = node.type === 'integer';
  let lo = num(node.minimum) ? node.minimum : undefined;
  let hi = num(node.maximum) ? node.maximum : undefined;
  let loOpen = false;
  let hiOpen = false;
  if (num(node.exclusiveMinimum)) {
    const m = integer ? Math.floor(node.exclusiveMinimum) + 1 : node.exclusiveMinimum;
    if (lo === undefined || m >= lo) [lo, loOpen] = [m, !integer];
  }
  if (num(node.exclusiveMaximum)) {
    const m = integer ? Math.ceil(node.exclusiveMaximum) - 1 : node.exclusiveMaximum;
    if (hi === undefined || m <= hi) [hi, hiOpen] = [m, !integer];
  }
  return { ...(lo !== undefined ? { lo } : {}), ...(hi !== undefined ? { hi } : {}), loOpen, hiOpen };
}

/** `lo-hi <unit>`, `≤hi <unit>`, `≥lo <unit>` for a length or item count (a minimum of 0 is no bound). */
function countText(lo: unknown, hi: unknown, unit: string, one: string): string | undefined {
  const min = num(lo) && lo > 0 ? lo : undefined;
  const max = num(hi) ? hi : undefined;
  if (min !== undefined && max !== undefined) return min === max ? `${min} ${unit}` : `${span(min, max)} ${unit}`;
  if (max !== undefined) return `≤${max} ${unit}`;
  if (min !== undefined) return min === 1 ? one : `≥${min} ${unit}`;
  return undefined;
}

/**
 * The bounds of one schema node as terse text for its description, or undefined when it has none:
 * numbers `1-50`, `≤90`, `>0`, `>0, ≤90`; strings `1-256 chars`, `≤2000 chars`, `non-empty`; arrays `1-4 items`.
 * The one place description text about bounds comes from (tools/list and the contract test both use it).
 */
export function boundText(node: Json): string | undefined {
  const parts: string[] = [];
  const { lo, hi, loOpen, hiOpen } = numericBounds(node);
  if (lo !== undefined && hi !== undefined && !loOpen && !hiOpen) parts.push(span(lo, hi));
  else {
    if (lo !== undefined) parts.push(`${loOpen ? '>' : '≥'}${lo}`);
    if (hi !== undefined) parts.push(`${hiOpen ? '<' : '≤'}${hi}`);
  }
  const length = countText(node.minLength, node.maxLength, 'chars', 'non-empty');
  if (length) parts.push(length);
  const items = countText(node.minItems, node.maxItems, 'items', '≥1 item');
  if (items) parts.push(items);
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/** The description a node carries on the wire: its own, then its bounds and default in one parenthesis. */
function describedWith(node: Json): string | undefined {
  const own = typeof node.description === 'string' ? node.description : undefined;
  const notes: string[] = [];
  const bounds = boundText(node);
  if (bounds && !own?.includes(bounds)) notes.push(bounds);
  if ('default' in node && node.default !== undefined) notes.push(`default ${JSON.stringify(node.default)}`);
  if (notes.length === 0) return own;
  return own ? `${own} (${notes.join('; ')})` : notes.join('; ');
}

/** One schema node (and its subschemas) rewritten into the portable subset described above. */
export function portableJson(node: Json): Json {
  const out: Json = {};
  const integer = node.type === 'integer';
  for (const [k, v] of Object.entries(node)) {
    if (DROPPED.has(k)) continue;
    if (k === 'exclusiveMinimum' && typeof v === 'number') {
      const min = integer ? Math.floor(v) + 1 : v;
      out.minimum = typeof node.minimum === 'number' ? Math.max(node.minimum, min) : min;
    } else if (k === 'exclusiveMaximum' && typeof v === 'number') {
      const max = integer ? Math.ceil(v) - 1 : v;
      out.maximum = typeof node.maximum === 'number' ? Math.min(node.maximum, max) : max;
    } else if ((k === 'minimum' && 'exclusiveMinimum' in node) || (k === 'maximum' && 'exclusiveMaximum' in node)) {
      // Merged above.
    } else if (SCHEMA_MAPS.has(k) && v && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v as Json).map(([name, s]) => [name, portableAny(s)]));
    } else if (SCHEMA_LISTS.has(k) && Array.isArray(v)) {
      out[k] = v.map(portableAny);
    } else if (SCHEMA_ONE.has(k)) {
      out[k] = portableAny(v);
    } else {
      out[k] = v;
    }
  }
  const description = describedWith(node);
  if (description !== undefined) out.description = description;
  return out;
}

interface Issue {
  code?: string;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  message: string;
  [k: string]: unknown;
}

/**
 * A bound's refusal in the same words as its description (`boundText`): zod's default "Too big: expected string
 * to have <=2000 characters" becomes "must be at most 2000 characters". Only zod's own wording is replaced; a
 * message a schema set itself is kept. The SDK prefixes the field path (`context: …`).
 */
export function boundRule(issue: Issue): string {
  const { code, origin, inclusive } = issue;
  const defaultWording = /^Too (big|small):/.test(issue.message);
  if (!defaultWording || (code !== 'too_big' && code !== 'too_small')) return issue.message;
  const n = Number(code === 'too_big' ? issue.maximum : issue.minimum);
  const big = code === 'too_big';
  if (origin === 'string') {
    if (!big && n === 1) return 'must not be empty';
    return `must be ${big ? 'at most' : 'at least'} ${n} characters`;
  }
  if (origin === 'array' || origin === 'set')
    return `must have ${big ? 'at most' : 'at least'} ${n} item${n === 1 ? '' : 's'}`;
  if (inclusive === false) return `must be ${big ? 'less' : 'greater'} than ${n}`;
  return `must be ${big ? 'at most' : 'at least'} ${n}`;
}

type Validate = (value: unknown, options?: unknown) => unknown;

/** The schema's `~standard.validate`, its bound issues reworded by `boundRule`. */
function withBoundRules(validate: Validate): Validate {
  const reword = (result: unknown): unknown => {
    const issues = (result as { issues?: Issue[] } | undefined)?.issues;
    if (!issues) return result;
    return { ...(result as object), issues: issues.map((i) => ({ ...i, message: boundRule(i) })) };
  };
  return (value, options) => {
    const result = validate(value, options);
    return result instanceof Promise ? result.then(reword) : reword(result);
  };
}

const portableAny = (v: unknown): unknown =>
  v && typeof v === 'object' && !Array.isArray(v) ? portableJson(v as Json) : v;

function viewed<T extends object>(
  schema: T,
  input: (j: Json) => Json,
  output: (j: Json) => Json,
  rewordBounds = false,
): T {
  const std = (schema as { '~standard'?: StandardProps })['~standard'];
  const convert = std?.jsonSchema;
  if (!std || !convert) return schema;
  const validate = std.validate as Validate | undefined;
  const standard: StandardProps = {
    ...std,
    ...(rewordBounds && typeof validate === 'function' ? { validate: withBoundRules(validate.bind(std)) } : {}),
    jsonSchema: { input: (o) => input(convert.input(o)), output: (o) => output(convert.output(o)) },
  };
  return new Proxy(schema, {
    get: (target, prop, receiver) => (prop === '~standard' ? standard : Reflect.get(target, prop, receiver)),
  });
}

/** The same schema object whose JSON Schema view has no root `$schema` (output schemas). */
export function portableSchema<T extends object>(schema: T): T {
  return viewed(schema, withoutDialect, withoutDialect);
}

/**
 * An input schema: the model-facing view is the portable subset; validation is the full zod schema, whose bound
 * refusals read like the bound text of the description (`boundRule`).
 */
export function portableInputSchema<T extends object>(schema: T): T {
  const view = (j: Json) => portableJson(withoutDialect(j));
  return viewed(schema, view, view, true);
}
