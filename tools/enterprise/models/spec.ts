/**
 * The contract of one enterprise model shape (platform-api.md, "Enterprise model parameters"), plus the
 * small zod and pricing helpers the shape files share. A shape is the spec's id with its `<vendorX>`
 * placeholder; `index.ts` matches live catalog ids to shapes.
 */
import { z } from 'zod';
import type { VendorLetter } from '../../../src/config.js';

export type ModelMedia = 'image' | 'video';

export interface ModelPrice {
  /** Displayed credits. */
  credits: number;
  /** How the number was reached; starts with `spec:`, `catalog:` or `unknown:`. */
  basis: string;
}

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
  price(params: Record<string, unknown>, catalogCredits?: string): ModelPrice;
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

export const prompt = (opts: { min?: number; max?: number } = {}) => {
  let s = z.string();
  if (opts.min !== undefined) s = s.min(opts.min, `must be at least ${opts.min} characters`);
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

/** The first number of a catalog `credits` string; "API unit(s)" means ×100 (convention 4). */
export function parseCatalogCredits(raw: string | undefined): { credits: number; perSecond: boolean } | undefined {
  if (!raw) return undefined;
  const m = /(\d+(?:\.\d+)?)/.exec(raw);
  if (!m) return undefined;
  let credits = Number(m[1]);
  if (/api\s*(credit\s*)?units?/i.test(raw)) credits *= 100;
  const perSecond = /(per|\/)\s*(second|sec|s)\b/i.test(raw);
  return { credits, perSecond };
}

/**
 * When neither the spec nor the catalog gives a number: over-estimate rather than under-estimate, so the
 * consent prompt and the ceilings err on the user's side. These numbers are our assumption, not the platform's.
 */
export const ASSUMED_UNKNOWN_CREDITS: Record<ModelMedia, number> = { image: 100, video: 500 };

/**
 * Price from the catalog string, times `count` outputs (models where "each image consumes credits") and
 * times `seconds` when the catalog quotes per second. Falls back to the assumption above.
 */
export function catalogPrice(
  media: ModelMedia,
  catalogCredits: string | undefined,
  opts: { count?: number; seconds?: number; what?: string } = {},
): ModelPrice {
  const count = opts.count ?? 1;
  const parsed = parseCatalogCredits(catalogCredits);
  if (!parsed) {
    const credits = ASSUMED_UNKNOWN_CREDITS[media] * count;
    return {
      credits,
      basis: `unknown: platform charges its own rate; assumed ${ASSUMED_UNKNOWN_CREDITS[media]} per ${media}${count > 1 ? ` × ${count}` : ''}`,
    };
  }
  let credits = parsed.credits * count;
  let basis = `catalog: "${catalogCredits}"${count > 1 ? ` × ${count} ${opts.what ?? 'outputs'}` : ''}`;
  if (parsed.perSecond) {
    const seconds = opts.seconds ?? 10;
    credits *= seconds;
    basis += ` × ${seconds} s${opts.seconds === undefined ? ' (duration assumed)' : ''}`;
  }
  return { credits: Math.round(credits * 100) / 100, basis };
}

/** A number param if it is one (prices read raw params, which are already validated). */
export function num(params: Record<string, unknown>, key: string): number | undefined {
  const v = params[key];
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v)) return Number(v);
  return undefined;
}
