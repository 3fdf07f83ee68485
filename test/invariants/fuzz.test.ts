/**
 * Invariant 4 (bad input costs nothing) and robustness, by property: for every tool in ALL_TOOLS,
 *
 * - near-valid arguments: the tool's valid example (test/helpers/examples.ts) with exactly one thing made
 *   invalid (wrong type, out-of-range number, over-long or empty string, value outside an enum, private
 *   or credentialed URL, missing required field, unknown extra key, array of the wrong size, wrong type
 *   inside a nested object). Invalid by construction, so each must come back as an `isError` result whose
 *   text names the field, with zero job-starting POSTs reaching the simulator;
 * - arbitrary JSON arguments (keys from the schema mixed with random ones, any JSON values): the call
 *   resolves with a result (no crash, no protocol error), an argument the schema does not know is refused
 *   naming it, and no job-starting POST is sent unless the result reports a job.
 *
 * Seeded and bounded: GENPLAT_FUZZ_RUNS (default 30) runs per tool and property; GENPLAT_FUZZ_SEED to
 * replay another seed. The schemas are each tool's full input schema (every rule, `toolInput`), not the portable
 * view tools/list shows, which leaves length caps to the server; tools/list must still name the same fields.
 */
import type { Tool } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolInput } from '../../src/tool-runtime.js';
import { ALL_TOOLS } from '../../tools/index.js';
import { billablePosts, exampleFor } from '../helpers/examples.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

const RUNS = Number(process.env.GENPLAT_FUZZ_RUNS ?? 30);
const SEED = Number(process.env.GENPLAT_FUZZ_SEED ?? 0x6e9_1a7);

type Args = Record<string, unknown>;
interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
}

/** Hostile values for URL fields (invariant 7): private, loopback, link-local, metadata, CGNAT, mapped, credentials, schemes. */
const HOSTILE_URLS = [
  'http://127.0.0.1/a.png',
  'http://localhost/a.png',
  'http://10.1.2.3/a.png',
  'http://172.16.5.4/a.png',
  'https://192.168.0.10/a.png',
  'http://169.254.169.254/latest/meta-data/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://100.64.0.1/a.png',
  'http://[::1]/a.png',
  'http://[::ffff:127.0.0.1]/a.png',
  'http://[fe80::1]/a.png',
  'http://[fd00::1]/a.png',
  'http://0.0.0.0/a.png',
  'http://2130706433/a.png',
  'http://0x7f.0.0.1/a.png',
  'https://user:secret@cdn.example.com/a.png',
  'ftp://cdn.example.com/a.png',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'data:text/html;base64,PHNjcmlwdD4=',
  '//cdn.example.com/a.png',
];

interface Mutation {
  /** The field made invalid: the error text must name it. */
  field: string;
  what: string;
  args: Args;
}

const types = (s: JsonSchema): string[] => {
  if (s.anyOf) return s.anyOf.flatMap(types);
  if (Array.isArray(s.type)) return s.type;
  return s.type ? [s.type] : [];
};

/** Values of a JSON type the schema does not accept. */
function wrongTypes(s: JsonSchema): fc.Arbitrary<unknown>[] {
  const t = types(s);
  const out: fc.Arbitrary<unknown>[] = [fc.constant(null)];
  if (!t.includes('string')) out.push(fc.string({ maxLength: 12 }));
  if (!t.includes('number') && !t.includes('integer')) out.push(fc.integer({ min: -1e6, max: 1e6 }));
  if (t.includes('integer') && !t.includes('number'))
    out.push(fc.double({ min: -1e3, max: 1e3, noNaN: true }).filter((x) => !Number.isInteger(x)));
  if (!t.includes('boolean')) out.push(fc.boolean());
  if (!t.includes('array')) out.push(fc.array(fc.integer(), { maxLength: 3 }));
  if (!t.includes('object')) out.push(fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.integer(), { maxKeys: 2 }));
  return out;
}

const isUrlish = (name: string, value: unknown) =>
  (typeof value === 'string' && /^https?:\/\//.test(value)) || /(_url|_urls)$/.test(name);

/** Every single-point invalidation of `example` the schema allows, as one arbitrary. */
function mutations(example: Args, schema: JsonSchema): fc.Arbitrary<Mutation> {
  const props = schema.properties ?? {};
  const known = new Set(Object.keys(props));
  const opts: fc.Arbitrary<Mutation>[] = [];
  const set = (field: string, what: string, value: fc.Arbitrary<unknown>) =>
    opts.push(value.map((v) => ({ field, what, args: { ...example, [field]: v } })));

  for (const [field, p] of Object.entries(props)) {
    const t = types(p);
    set(field, 'wrong type', fc.oneof(...wrongTypes(p)));
    if (t.includes('number') || t.includes('integer')) {
      const hi = p.maximum ?? p.exclusiveMaximum;
      const lo = p.minimum ?? p.exclusiveMinimum;
      if (hi !== undefined)
        set(field, 'above maximum', fc.integer({ min: Math.floor(hi) + 1, max: Math.floor(hi) + 1e6 }));
      if (lo !== undefined)
        set(field, 'below minimum', fc.integer({ min: Math.ceil(lo) - 1e6, max: Math.ceil(lo) - 1 }));
    }
    if (t.includes('string') && !p.enum) {
      if (p.maxLength !== undefined) {
        const max = p.maxLength;
        set(
          field,
          'over-long string',
          fc.integer({ min: max + 1, max: max + 300 }).map((n) => 'x'.repeat(n)),
        );
      }
      if ((p.minLength ?? 0) >= 1) set(field, 'empty string', fc.constant(''));
      if (isUrlish(field, example[field])) set(field, 'hostile URL', fc.constantFrom(...HOSTILE_URLS));
      // A public https callback is still refused unless the operator allow-listed its host (none here).
      if (field === 'webhook_url')
        set(field, 'webhook host not allow-listed', fc.constant('https://hooks.example.org/cb'));
    }
    if (p.enum) {
      const allowed = new Set(p.enum);
      set(
        field,
        'outside the enum',
        fc
          .string({ minLength: 1, maxLength: 10 })
          .filter((v) => !allowed.has(v))
          .map((v) => `zz${v}`),
      );
    }
    if (t.includes('array')) {
      const current = Array.isArray(example[field]) ? (example[field] as unknown[]) : undefined;
      const item = current?.[0];
      if ((p.minItems ?? 0) >= 1) set(field, 'too few items', fc.constant([]));
      if (p.maxItems !== undefined && item !== undefined) {
        const max = p.maxItems;
        set(
          field,
          'too many items',
          fc.integer({ min: max + 1, max: max + 5 }).map((n) => Array(n).fill(item)),
        );
      }
      if (current && current.length > 0 && current.every((v) => typeof v === 'string' && /^https?:/.test(v))) {
        set(
          field,
          'hostile URL in the array',
          fc
            .tuple(fc.nat({ max: current.length - 1 }), fc.constantFrom(...HOSTILE_URLS))
            .map(([i, u]) => current.map((v, k) => (k === i ? u : v))),
        );
      }
    }
    // One level down: a nested object's known leaf given a value of the wrong type (params, fields).
    const nested = example[field];
    if (nested && typeof nested === 'object' && !Array.isArray(nested)) {
      for (const [leaf, v] of Object.entries(nested as Args)) {
        if (typeof v !== 'string') continue;
        opts.push(
          fc
            .oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }))
            .map((bad) => ({
              field: leaf,
              what: `wrong type in ${field}`,
              args: { ...example, [field]: { ...(nested as Args), [leaf]: bad } },
            })),
        );
      }
    }
  }
  for (const field of schema.required ?? []) {
    if (!(field in example)) continue;
    const { [field]: _gone, ...rest } = example;
    opts.push(fc.constant({ field, what: 'missing required', args: rest }));
  }
  opts.push(
    fc
      .stringMatching(/^[a-z][a-z0-9_]{0,11}$/)
      .filter((k) => !known.has(k))
      .map((k) => ({ field: k, what: 'unknown key', args: { ...example, [k]: 'surplus' } })),
  );
  return fc.oneof(...opts);
}

/** Arbitrary argument objects: schema keys and random keys, any JSON values. */
function arbitraryArgs(schema: JsonSchema): fc.Arbitrary<Args> {
  const names = Object.keys(schema.properties ?? {});
  const key =
    names.length > 0 ? fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 10 })) : fc.string({ maxLength: 10 });
  return fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }) as fc.Arbitrary<Args>;
}

/** The error text names `name`, plainly or JSON-escaped. */
const names = (t: string, name: string) => t.includes(name) || t.includes(JSON.stringify(name).slice(1, -1));

let stdio: Harness;
let http: Harness;
/** The harness a tool is fuzzed on: the transport it is listed on (src/tool-visibility.ts), stdio when both. */
let h: Harness;
const harnessOf = (tool: string) => (ALL_TOOLS.find((t) => t.name === tool)?.only === 'http' ? http : stdio);
let listed: Map<string, Tool>;
/** Each tool's full input schema (every rule), by name. */
const rules = new Map<string, JsonSchema>();
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  // An approval policy named so decide_approval is listed and fuzzed like every other tool.
  const config = { maxCreditsPerCall: 1_000_000, maxCreditsPerDay: 10_000_000, approvalsFile: '/policy.json' };
  stdio = await startHarness({ config });
  // One simulator for both, so every tool's posts are counted in one place.
  http = await startHarness({ config, owner: 'fuzz-http', sim: stdio.sim });
  h = stdio;
  listed = new Map(
    [...(await stdio.client.listTools()).tools, ...(await http.client.listTools()).tools].map((t) => [t.name, t]),
  );
  for (const spec of ALL_TOOLS) {
    const full = z.toJSONSchema(toolInput(spec), { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    const shown = listed.get(spec.name)?.inputSchema as JsonSchema | undefined;
    expect(Object.keys(shown?.properties ?? {}), `${spec.name}: tools/list names every field`).toEqual(
      Object.keys(full.properties ?? {}),
    );
    rules.set(spec.name, full);
  }
});
afterAll(async () => {
  await http.close();
  await stdio.close();
  process.off('unhandledRejection', onUnhandled);
});

/** One call; a rejected promise (protocol error, crash, timeout) is a failure of the property. */
async function call(tool: string, args: Args) {
  try {
    return await harnessOf(tool).call(tool, args, { timeout: 20_000 });
  } catch (err) {
    throw new Error(`${tool} did not answer with a result for ${JSON.stringify(args)}: ${String(err)}`);
  }
}

describe.each(ALL_TOOLS.map((t) => t.name))('fuzz %s', (tool) => {
  it('near-valid arguments are refused, naming the field, and cost nothing', async () => {
    const schema = rules.get(tool) as JsonSchema;
    expect(listed.get(tool), `${tool} is listed`).toBeDefined();
    const example = exampleFor(tool).args(h.sim, 0);
    await fc.assert(
      fc.asyncProperty(mutations(example, schema), async (m) => {
        const before = billablePosts(h.sim);
        const r = await call(tool, m.args);
        const t = text(r);
        expect(r.isError, `${m.what} of ${m.field} was accepted: ${JSON.stringify(structured(r))}`).toBe(true);
        expect(names(t, m.field), `the error does not name ${m.field} (${m.what}): ${t}`).toBe(true);
        expect(billablePosts(h.sim) - before, `${m.what} of ${m.field} reached a job-starting route`).toBe(0);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    expect(unhandled).toEqual([]);
  });

  it('arbitrary JSON arguments get a result, unknown keys are named, nothing is started by accident', async () => {
    const schema = rules.get(tool) as JsonSchema;
    const known = new Set(Object.keys(schema.properties ?? {}));
    await fc.assert(
      fc.asyncProperty(arbitraryArgs(schema), async (args) => {
        const before = billablePosts(h.sim);
        const r = await call(tool, args);
        const t = text(r);
        expect(r.content.length, 'a result always carries text for the model').toBeGreaterThan(0);
        const unknown = Object.keys(args).filter((k) => !known.has(k));
        if (unknown.length > 0) {
          expect(r.isError, `unknown keys ${JSON.stringify(unknown)} were accepted`).toBe(true);
          expect(
            unknown.some((k) => names(t, k)),
            `the error names none of ${JSON.stringify(unknown)}: ${t}`,
          ).toBe(true);
        }
        const started = billablePosts(h.sim) - before;
        if (started > 0) {
          expect(started).toBe(1);
          expect(['submitted', 'completed', 'unknown']).toContain(structured(r).status);
        }
      }),
      { numRuns: RUNS, seed: SEED + 1, endOnFailure: true },
    );
    expect(unhandled).toEqual([]);
  });
});
