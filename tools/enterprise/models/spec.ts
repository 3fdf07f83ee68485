/**
 * The contract of one enterprise model shape (platform-api.md, "Enterprise model parameters"), plus the
 * small zod and pricing helpers the shape files share. A shape is the spec's id with its `<vendorX>`
 * placeholder; `index.ts` matches live catalog ids to shapes.
 */
import { z } from 'zod';
import type { VendorLetter } from '../../../src/config.js';
import type { ModelPricing } from './usage.js';

export type ModelMedia = 'image' | 'video';

/**
 * A model's price for one call: an upper bound from what is published (`bounded: true`), or the reason
 * nothing published bounds it (`bounded: false`; run_model then quotes the operator table or the ceiling).
 */
export type ModelPrice =
  | { bounded: true; credits: number /** starts with `spec:` or `catalog:` */; basis: string }
  | { bounded: false; basis: string };

export interface ModelSpec {
  /** The spec's id, e.g. `<vendorG>-image-2.5-flare-edit`. */
  shape: string;
  /** The letter of the vendor placeholder and the id after it (`-image-2.5-flare-edit`). */
  letter: VendorLetter;
  suffix: string;
  /**
   * How a catalog id may match without the configured vendor name:
   * `suffix` = any non-empty vendor part; `single-token` = a vendor part without '-' (short suffixes that
   * other families could share); `exact` = only `<configured vendor><suffix>`.
   */
  matchBy: 'suffix' | 'single-token' | 'exact';
  media: ModelMedia;
  /** The platform rejects unknown params (spec: "strict"); the schema is `strictObject`. */
  strict: boolean;
  /** false = the spec marks it polling-only: webhook_url is refused before any request. */
  webhook: boolean;
  /** true when the spec states webhook support or polling-only; false = not stated, webhook_url forwarded. */
  webhookStated: boolean;
  /**
   * Top-level params keys where the spec allows base64 data URIs ("media accepts public HTTP(S) URLs or
   * base64 data URIs"). Everywhere else in params a `data:` value is refused before any request.
   */
  dataUriFields?: readonly string[];
  /** The params object sent inside `params`. Checked before any request. */
  params: z.ZodType<Record<string, unknown>>;
  /** One line: what it makes and the rules the JSON Schema cannot show. */
  notes: string;
  /** What the spec says the price depends on; `price.ts` reads it with the catalog text. */
  pricing: ModelPricing;
}

/**
 * A spec whose `params` schema is built on first read and then kept. Importing the registry (every server
 * start, via list_models and run_model) then costs no zod construction: the 13 schemas took 23-37 ms of
 * cold start and are needed only when run_model checks params or a model resource shows them.
 */
export function defineModel(spec: Omit<ModelSpec, 'params'> & { params: () => ModelSpec['params'] }): ModelSpec {
  const build = spec.params;
  let built: ModelSpec['params'] | undefined;
  return {
    ...spec,
    get params() {
      built ??= build();
      return built;
    },
  };
}

/** Convention 10: never user_id or client-supplied billing controls, on any model (the simulator agrees). */
export const BILLING_CONTROL_FIELDS = [
  'user_id',
  'credits',
  'credit',
  'price',
  'cost',
  'billing',
  'charge',
  'amount',
] as const;

/** A field the model rejects: present at all → error (JSON Schema shows it as `not: {}`). */
export const forbidden = (why: string) => z.never({ error: why }).optional();

/**
 * The rule for an empty string on a published model: a value the spec requires is missing, and an optional one
 * sent empty is not a value the spec allows (omitting it gets the model's default). One wording for the schema
 * (`text`) and for the loose models' undeclared params (`checkParams`).
 */
export const EMPTY_RULE = 'must not be empty (omit an optional param to get its default)';

/** A string param of a published model: never empty (see EMPTY_RULE). */
export const text = () => z.string().min(1, EMPTY_RULE);

export const prompt = (opts: { min?: number; max?: number } = {}) => {
  let s = z.string();
  if (opts.min !== undefined)
    s = s.min(opts.min, opts.min === 1 ? 'must not be empty' : `must be at least ${opts.min} characters`);
  if (opts.max !== undefined) s = s.max(opts.max, `must be at most ${opts.max} characters`);
  return s.describe('what to generate');
};

/** Integer with range; zod's message for 5.5 or "5" is spelled out because the spec rejects both. */
export const int = (min?: number, max?: number) => {
  let n = z.number({ error: 'must be an integer (not a string)' }).int('must be an integer (no fractions)');
  if (min !== undefined) n = n.min(min, `must be at least ${min}`);
  if (max !== undefined) n = n.max(max, `must be at most ${max}`);
  return n;
};

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

/** `image_size`: a preset name (presets not listed by the spec) or `{width, height}`, both required integers. */
export const imageSize = () =>
  z
    .union([
      z.string().min(1, 'must be a preset name or {width, height}'),
      z.strictObject({ width: int(1), height: int(1) }),
    ])
    .describe('preset name, or {width, height} in pixels');
