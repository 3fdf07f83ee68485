/**
 * Portable schemas (issue 13 item 2): every inputSchema in the real tools/list (through the harness client)
 * stays inside the documented schema subsets of OpenAI strict function calling and Gemini function
 * declarations, so frameworks can pass our tools on without patching them or falling back to non-strict mode.
 * The subsets are data below, each with its source; every remaining exception is listed with its reason
 * (docs/protocol.md "Portable schemas" says the same). A new keyword or a new exception fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { boundRule, boundText, portableJson } from '../../src/protocol/portable-schema.js';
import { toolInput } from '../../src/tool-runtime.js';
import { ALL_TOOLS } from '../../tools/index.js';
import { APPS_HOST, type Harness, startHarness } from '../helpers/harness.js';

type Schema = Record<string, unknown>;

/**
 * OpenAI Structured Outputs, "Supported schemas" (https://platform.openai.com/docs/guides/structured-outputs
 * #supported-schemas; function calling with `strict: true` uses the same subset). Supported types: string,
 * number, boolean, integer, object, array, enum, anyOf; strings: pattern, format; numbers: multipleOf, maximum,
 * exclusiveMaximum, minimum, exclusiveMinimum; arrays: minItems, maxItems; plus $defs/$ref, const,
 * description, title. Every object sets `additionalProperties: false`; every property is listed in `required`;
 * the root is an object (not anyOf); at most 10 levels of nesting.
 */
const OPENAI_STRICT = {
  keywords: new Set([
    'type',
    'properties',
    'required',
    'additionalProperties',
    'items',
    'enum',
    'const',
    'anyOf',
    '$defs',
    '$ref',
    'description',
    'title',
    'pattern',
    'format',
    'multipleOf',
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'minItems',
    'maxItems',
  ]),
  formats: new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']),
  maxDepth: 10,
};

/**
 * Gemini function declarations: `parameters` is a Schema object, "a select subset of an OpenAPI 3.0 schema
 * object" (https://ai.google.dev/api/caching#Schema; same field list in the generativelanguage v1beta
 * `Schema` proto): type, format, title, description, nullable, enum, maxItems, minItems, properties,
 * required, minProperties, maxProperties, minLength, maxLength, pattern, example, anyOf, propertyOrdering,
 * default, items, minimum, maximum. `type` is one type (no type arrays); `enum` holds strings; string formats
 * are `enum` and `date-time`.
 */
const GEMINI = {
  keywords: new Set([
    'type',
    'format',
    'title',
    'description',
    'nullable',
    'enum',
    'maxItems',
    'minItems',
    'properties',
    'required',
    'minProperties',
    'maxProperties',
    'minLength',
    'maxLength',
    'pattern',
    'example',
    'anyOf',
    'propertyOrdering',
    'default',
    'items',
    'minimum',
    'maximum',
  ]),
  formats: new Set(['enum', 'date-time']),
};

/**
 * The exceptions, each justified. `where` is a path pattern (`tool.prop.sub`, `*` = any tool, `[]` = array items).
 * - additionalProperties (Gemini): OpenAI strict requires `false` on every object and the MCP SDK emits it for
 *   strict inputs (an unknown argument is refused); Gemini's Schema has no such field, and its SDKs and
 *   frameworks drop it (its `parametersJsonSchema` accepts it). Dropping it loosens nothing we enforce.
 * - optional properties (OpenAI strict wants every property required): our optional fields are genuinely
 *   optional (alternatives such as script vs voice_url, platform defaults). Strict converters (OpenAI Agents'
 *   strict schema conversion) mark them required; the model must then be able to omit them, which this server
 *   does not yet accept as `null` (docs/protocol.md, "Portable schemas").
 * - open maps, kept open only where the platform is open: `run_model.params` (each model's inputs differ; the
 *   schema is genplat://models/{model} and the server checks params against it) and
 *   `create_template_video.fields` (each template defines its own fields, all strings; list_templates lists
 *   them and the server checks them). Neither fits OpenAI strict (`additionalProperties` must be false);
 *   a framework sends these two tools non-strict (or as a JSON object it does not constrain), and Gemini reads
 *   them as objects without declared properties. Also `confirm_paid_call.arguments`: the MCP App's Confirm
 *   button (app-only, `_meta.ui.visibility: ["app"]`, hidden from the model by App hosts) carries the paid
 *   tool's own arguments, which the server re-validates against that tool; a framework without Apps should
 *   not offer it to a model at all. And create_campaign's `items[].arguments` (another tool's arguments, checked
 *   against that tool) and `vary` (field → values over those arguments).
 */
const OPEN_MAPS = new Set([
  'run_model.params',
  'create_template_video.fields',
  'confirm_paid_call.arguments',
  // create_campaign (issue 21): each item's `arguments` are that item's tool's own (re-validated against it,
  // errors naming items[i].<field>), and `vary` maps any of those fields to its values.
  'create_campaign.items[].arguments',
  'create_campaign.vary',
]);

interface Finding {
  path: string;
  rule: string;
}

/** Walks one schema node, reporting every departure from `subset` (minus the listed exceptions). */
function lint(provider: 'openai' | 'gemini', schema: Schema, path: string, depth: number, out: Finding[]): void {
  const subset = provider === 'openai' ? OPENAI_STRICT : GEMINI;
  const openMap = OPEN_MAPS.has(path);
  for (const key of Object.keys(schema)) {
    if (key === 'additionalProperties' && provider === 'gemini') continue; // exception: see above
    if (!subset.keywords.has(key)) out.push({ path, rule: `keyword ${key}` });
  }
  if (typeof schema.format === 'string' && !subset.formats.has(schema.format))
    out.push({ path, rule: `format ${schema.format}` });
  if (Array.isArray(schema.type)) out.push({ path, rule: 'type array' });
  if (provider === 'gemini' && Array.isArray(schema.enum) && schema.enum.some((v) => typeof v !== 'string'))
    out.push({ path, rule: 'non-string enum' });
  if (provider === 'openai' && depth > OPENAI_STRICT.maxDepth) out.push({ path, rule: 'nesting deeper than 10' });
  if (schema.type === 'object') {
    const ap = schema.additionalProperties;
    if (openMap) {
      // Exception: open only here; its values are still typed where the platform types them.
      if (path === 'create_template_video.fields')
        expect(ap, path).toEqual({ type: 'string', description: 'non-empty' });
    } else if (ap !== false && provider === 'openai') {
      out.push({ path, rule: 'object without additionalProperties: false' });
    }
    if (ap !== undefined && typeof ap === 'object' && ap !== null && !openMap)
      out.push({ path, rule: 'open map outside the listed ones' });
  }
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  for (const [name, sub] of Object.entries(props)) lint(provider, sub, `${path}.${name}`, depth + 1, out);
  if (schema.items && typeof schema.items === 'object')
    lint(provider, schema.items as Schema, `${path}[]`, depth + 1, out);
  for (const alt of (schema.anyOf ?? []) as Schema[]) lint(provider, alt, path, depth + 1, out);
}

let h: Harness;
let hHttp: Harness;
let tools: { name: string; inputSchema: Schema }[];
beforeAll(async () => {
  // An MCP Apps host, so the App-only Confirm tool's schema is linted too.
  // With an approval policy, so the `approvals` toolset (decide_approval) is listed and checked too.
  // Over stdio and over HTTP (a caller): each lists the tools that work there (tool-visibility.ts); together, all.
  const opts = { clientCapabilities: APPS_HOST, config: { approvalsFile: '/etc/genplat/approvals.json' } };
  h = await startHarness(opts);
  hHttp = await startHarness({ ...opts, owner: 'http-schemas' });
  const both = [...(await h.client.listTools()).tools, ...(await hHttp.client.listTools()).tools];
  tools = [...new Map(both.map((t) => [t.name, t])).values()] as typeof tools;
});
afterAll(async () => {
  await h?.close();
  await hHttp?.close();
});

describe('tools/list input schemas are portable', () => {
  it('has no root $schema and an object root on every tool', () => {
    expect(tools.length).toBeGreaterThanOrEqual(20);
    for (const t of tools) {
      expect(t.inputSchema.$schema, t.name).toBeUndefined();
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(t.inputSchema.anyOf, t.name).toBeUndefined();
      // Both providers: ^[a-zA-Z_][a-zA-Z0-9_]*, at most 64 characters (OpenAI also allows dashes).
      expect(t.name, t.name).toMatch(/^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/);
    }
  });

  it.each(['openai', 'gemini'] as const)('stays inside the documented %s subset', (provider) => {
    const findings: Finding[] = [];
    for (const t of tools) lint(provider, t.inputSchema, t.name, 1, findings);
    expect(findings, JSON.stringify(findings)).toEqual([]);
  });

  it('required lists only declared properties (optional ones are the justified exception above)', () => {
    // The exception above, counted: if a tool makes every field required this stays true; a tool
    // cannot slip in a new kind of departure under it.
    for (const t of tools) {
      const props = Object.keys((t.inputSchema.properties ?? {}) as Schema);
      const required = (t.inputSchema.required ?? []) as string[];
      for (const r of required) expect(props, `${t.name}: required ${r} is a property`).toContain(r);
    }
  });

  it('keeps exactly the listed open maps open', () => {
    const open: string[] = [];
    for (const t of tools) {
      for (const [name, sub] of Object.entries((t.inputSchema.properties ?? {}) as Record<string, Schema>)) {
        if (sub.type === 'object' && sub.additionalProperties !== false) open.push(`${t.name}.${name}`);
        // One level into arrays of objects (create_campaign's items[].arguments).
        const inner = sub.type === 'array' ? (sub.items as Schema | undefined) : undefined;
        for (const [k, v] of Object.entries((inner?.properties ?? {}) as Record<string, Schema>)) {
          if (v.type === 'object' && v.additionalProperties !== false) open.push(`${t.name}.${name}[].${k}`);
        }
      }
    }
    expect(open.sort()).toEqual([...OPEN_MAPS].sort());
  });

  it('still enforces the rules the portable view leaves out (zod, naming the field)', async () => {
    // maxLength (64) is not on the wire; the server refuses and says so, before any request.
    const r = await h.call('list_voices', { language: 'x'.repeat(65) });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toMatch(/language.*64/);
    // exclusiveMinimum 0 is sent as minimum 0; 0 itself is still refused.
    const listed = tools.find((t) => t.name === 'create_product_video');
    const audio = (listed?.inputSchema.properties as Record<string, Schema> | undefined)?.audio_seconds;
    expect(audio).toMatchObject({ minimum: 0 });
    const r2 = await h.call('create_product_video', {
      engine: 'v2',
      image_url: 'https://cdn.example.com/p.png',
      script: 'hi',
      voice_id: 'v',
      audio_seconds: 0,
    });
    expect(r2.isError).toBe(true);
    expect(JSON.stringify(r2.content)).toMatch(/audio_seconds/);
    expect(h.sim.log.entries()).toHaveLength(0);
  });
});

/**
 * Issue 20 item 4: hosts strip bounds before the model sees the schema (Codex removes minimum, maximum, pattern,
 * maxItems; the portable view drops minLength/maxLength itself), so every bound of the full zod schema must also
 * be in the listed field's description. Walked over each tool's full input schema (`toolInput`, every rule), not
 * the listed one, so a bound the wire leaves out is still looked for.
 */
describe('every bound is in its field description (issue 20)', () => {
  /** The numbers a node's bounds state, as the model must read them (an integer's exclusive bound is the next one). */
  function boundNumbers(node: Schema): number[] {
    const integer = node.type === 'integer';
    const out: number[] = [];
    const n = (k: string) => (typeof node[k] === 'number' ? (node[k] as number) : undefined);
    for (const k of ['minimum', 'maximum', 'maxLength', 'maxItems']) if (n(k) !== undefined) out.push(n(k) as number);
    for (const k of ['minLength', 'minItems'])
      if ((n(k) ?? 0) > 1 || ((n(k) ?? 0) === 1 && n(k.replace('min', 'max')) !== undefined)) out.push(n(k) as number);
    const exMin = n('exclusiveMinimum');
    if (exMin !== undefined) out.push(integer ? Math.floor(exMin) + 1 : exMin);
    const exMax = n('exclusiveMaximum');
    if (exMax !== undefined) out.push(integer ? Math.ceil(exMax) - 1 : exMax);
    return out;
  }
  const states = (text: string, x: number) =>
    new RegExp(`(^|[^\\d.])${String(x).replace('.', '\\.')}($|[^\\d])`).test(text);

  /** Walks the full schema beside the listed one; reports bounded nodes whose listed description misses a bound. */
  function missing(full: Schema, listed: Schema | undefined, path: string, out: string[]): void {
    const description = typeof listed?.description === 'string' ? listed.description : '';
    for (const x of boundNumbers(full)) if (!states(description, x)) out.push(`${path}: ${x} not in "${description}"`);
    // A lone minimum length of 1 (a required value) reads "non-empty".
    if (full.minLength === 1 && full.maxLength === undefined && !/non-empty/.test(description))
      out.push(`${path}: non-empty not in "${description}"`);
    // A pattern has no terse bound text: its description shows the form by example.
    if (typeof full.pattern === 'string' && !/e\.g\./.test(description))
      out.push(`${path}: pattern without an example`);
    const props = (full.properties ?? {}) as Record<string, Schema>;
    const listedProps = (listed?.properties ?? {}) as Record<string, Schema>;
    for (const [k, sub] of Object.entries(props)) missing(sub, listedProps[k], `${path}.${k}`, out);
    if (full.items && typeof full.items === 'object')
      missing(full.items as Schema, listed?.items as Schema | undefined, `${path}[]`, out);
    const alts = (full.anyOf ?? []) as Schema[];
    alts.forEach((alt, i) => {
      missing(alt, ((listed?.anyOf ?? []) as Schema[])[i], `${path}|${i}`, out);
    });
  }

  it('every bounded field of every tool states its bound in tools/list', () => {
    const out: string[] = [];
    for (const spec of ALL_TOOLS) {
      const full = z.toJSONSchema(toolInput(spec), { io: 'input', unrepresentable: 'any' }) as Schema;
      const listed = tools.find((t) => t.name === spec.name)?.inputSchema;
      expect(listed, spec.name).toBeDefined();
      missing(full, listed, spec.name, out);
    }
    expect(out).toEqual([]);
  });

  it('writes bounds tersely, from the schema node alone', () => {
    expect(boundText({ type: 'integer', minimum: 1, maximum: 50 })).toBe('1-50');
    expect(boundText({ type: 'number', exclusiveMinimum: 0, maximum: 90 })).toBe('>0, ≤90');
    expect(boundText({ type: 'integer', exclusiveMinimum: 0 })).toBe('≥1');
    expect(boundText({ type: 'string', maxLength: 2000 })).toBe('≤2000 chars');
    expect(boundText({ type: 'string', minLength: 1, maxLength: 256 })).toBe('1-256 chars');
    expect(boundText({ type: 'string', minLength: 1 })).toBe('non-empty');
    expect(boundText({ type: 'array', minItems: 1, maxItems: 4 })).toBe('1-4 items');
    expect(boundText({ type: 'string' })).toBeUndefined();
    // The description carries bounds and default in one parenthesis, and never twice.
    expect(portableJson({ type: 'integer', minimum: 1, maximum: 50, default: 45, description: 'seconds' })).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 50,
      description: 'seconds (1-50; default 45)',
    });
    expect(portableJson({ type: 'string', maxLength: 9, description: 'x (≤9 chars)' }).description).toBe(
      'x (≤9 chars)',
    );
  });

  it('refuses a bound in the same words (zod defaults reworded, set messages kept)', () => {
    const rules = (schema: z.ZodType, value: unknown) =>
      (schema.safeParse(value).error?.issues ?? []).map((i) => boundRule(i as never));
    expect(rules(z.string().max(2000), 'x'.repeat(2001))).toEqual(['must be at most 2000 characters']);
    expect(rules(z.string().min(1), '')).toEqual(['must not be empty']);
    expect(rules(z.number().int().min(1).max(15), 0)).toEqual(['must be at least 1']);
    expect(rules(z.number().gt(0), 0)).toEqual(['must be greater than 0']);
    expect(rules(z.array(z.string()).max(10), Array(11).fill('a'))).toEqual(['must have at most 10 items']);
    expect(rules(z.string().max(3, 'own words'), 'xxxx')).toEqual(['own words']);
  });
});
