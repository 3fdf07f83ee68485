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
  if ('default' in node && node.default !== undefined) {
    const said = `default ${JSON.stringify(node.default)}`;
    out.description = typeof node.description === 'string' ? `${node.description} (${said})` : said;
  }
  return out;
}

const portableAny = (v: unknown): unknown =>
  v && typeof v === 'object' && !Array.isArray(v) ? portableJson(v as Json) : v;

function viewed<T extends object>(schema: T, input: (j: Json) => Json, output: (j: Json) => Json): T {
  const std = (schema as { '~standard'?: StandardProps })['~standard'];
  const convert = std?.jsonSchema;
  if (!std || !convert) return schema;
  const standard: StandardProps = {
    ...std,
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

/** An input schema: the model-facing view is the portable subset; validation is the full zod schema. */
export function portableInputSchema<T extends object>(schema: T): T {
  const view = (j: Json) => portableJson(withoutDialect(j));
  return viewed(schema, view, view);
}
