/**
 * What a run_model call uses that its price may depend on, read from its (validated) params: the outputs it
 * asks for, its seconds, the media it sends and its settings. A param whose effect on the price is not known
 * makes the usage unknown, and the quote unbounded (design.md §1 invariant 1, fail closed).
 */
import { isMediaKey, mediaItems } from '../../../src/paid/pricing/media-values.js';
import type { PriceUsage } from '../../../src/paid/pricing/price-bound.js';
import { DURATION, isCountName, wholeCount } from './counts.js';

/** What a published model's spec says about its price inputs (`ModelSpec.pricing`). */
export interface ModelPricing {
  /**
   * The spec's output-count field and its published default. No default = not published: an absent count
   * is then not known (the platform may make more than one), and the quote is unbounded.
   */
  count?: { field: string; default?: number };
  /** The published default duration in seconds (or the only one allowed). */
  seconds?: number;
  /** Published defaults of settings a price tier may name (`resolution: "720p"`). */
  defaults?: Readonly<Record<string, string>>;
  /** A price the spec itself states for one output (displayed credits), beside the catalog text. */
  fixed?: (params: Record<string, unknown>) => { credits: number; basis: string };
}

/** A string that a model may read as a number (`"4"`, `" 2.5 "`): priced like the number, never as a setting. */
const NUMERIC_TEXT = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)\s*$/;
/**
 * A key that may name a count or media (`images`, `reference_image`, `num_frames`…): on a key no published
 * schema declares, its string value is not known to be price-neutral.
 */
const COUNT_OR_MEDIA_WORD =
  /(?:^|_)(?:num|n|count|images?|outputs?|videos?|samples?|frames?|audios?|refs?|references?)(?:$|_)/;
/** `numImages` → `num_images`, then a whole-word test (a case-blind test would find "n" in "negative_prompt"). */
const isCountOrMediaKey = (key: string) =>
  COUNT_OR_MEDIA_WORD.test(key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase());
/** Numbers no price reads: a random seed picks among outputs, it does not change what is made. */
const PRICE_NEUTRAL_NUMBERS = new Set(['seed']);
/** Texts no price reads: what to make, in words. Any other string on an unpublished key may be a setting. */
const PRICE_NEUTRAL_TEXTS = new Set(['prompt', 'negative_prompt']);

export type UsageResult = { ok: true; usage: PriceUsage } | { ok: false; reason: string };

/**
 * @param known params the model's published schema declares (their effect on the price is the spec's and the
 * price text's to state); every other number, list or object is unknown and leaves the usage unknown.
 */
export function usageOf(
  params: Record<string, unknown>,
  pricing: ModelPricing = {},
  known: ReadonlySet<string> = new Set(),
): UsageResult {
  let outputs: number | undefined = 1;
  let seconds = pricing.seconds;
  let media = 0;
  const settings: Record<string, string> = { ...pricing.defaults };
  const unpublished: string[] = [];
  const sentCount = pricing.count && params[pricing.count.field] !== undefined;
  if (pricing.count && !sentCount) outputs = pricing.count.default;
  const unknown = (key: string): UsageResult => ({
    ok: false,
    reason: `params.${key}: its effect on the price is not published`,
  });
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (isCountName(key)) {
      // checkCounts refused anything else. Every count multiplies: which one the platform reads is not
      // published for every model, and two of them (batch_size × num_images) may both apply.
      if (outputs !== undefined) outputs *= wholeCount(value)!;
      continue;
    }
    if (key === DURATION) {
      seconds = wholeCount(value);
      continue;
    }
    // Every media item the call carries counts, under any key and at any depth (issue 27: `human_img`,
    // `garm_img`, `mask`, a data URI or a local path were not counted): an empty list never hides another one.
    const items = mediaItems(key, value);
    media += items;
    if (typeof value === 'string' && items > 0) continue;
    if (
      Array.isArray(value) &&
      value.every((v) => typeof v === 'string') &&
      (isMediaKey(key) || items === value.length)
    )
      continue;
    if (typeof value === 'string') {
      // A prompt is never a setting (a prompt reading "4k" selects no tier).
      if (PRICE_NEUTRAL_TEXTS.has(key)) continue;
      if (!known.has(key)) {
        // Fail closed (issue 18 review): `"4"` under an unpublished key may be read as 4 outputs or seconds, and
        // `reference_image: "…"` may be media; neither is a price-neutral setting.
        if (NUMERIC_TEXT.test(value) || isCountOrMediaKey(key)) return unknown(key);
        // Issue 27: any other free string there (`style`, `quality`) is priced only when a tier reads it.
        unpublished.push(key);
      }
      settings[key] = value;
    } else if (typeof value === 'boolean') {
      // Issue 27: `generate_audio: true` on an unpublished key may change the price as much as any setting.
      if (!known.has(key)) return unknown(key);
    } else if (known.has(key)) {
      const size = sizeOf(value);
      if (size) settings[key] = size;
      else if (typeof value === 'number') settings[key] = String(value);
    } else if (!(typeof value === 'number' && PRICE_NEUTRAL_NUMBERS.has(key))) {
      return unknown(key);
    }
  }
  return { ok: true, usage: { outputs, seconds, media, settings, unpublished } };
}

/** `{width, height}` → `"WxH"`, so a size tier can name it. */
function sizeOf(v: unknown): string | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const { width, height } = v as { width?: unknown; height?: unknown };
  return typeof width === 'number' && typeof height === 'number' ? `${width}x${height}` : undefined;
}
