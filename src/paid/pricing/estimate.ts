/**
 * The spec's prices as pure functions (platform-api.md, "Limits" → "Credit costs", and each endpoint's
 * "Cost" line). All figures are displayed credits; API units = credits / 100 (spec, general convention 4).
 * Every estimate is an upper bound of what the platform can charge by what it publishes (design.md §1.1).
 * Where nothing published bounds the price, `unboundedEstimate` quotes the operator's price table or the
 * per-call ceiling with `bounded: false`, and the cost guard then always asks explicitly.
 */
import type { Config } from '../../config.js';
import { type Estimate, estimate } from '../../jobs/envelope.js';
import { isMediaValue } from './media-values.js';
import { boundPrice, NO_USAGE } from './price-bound.js';

/**
 * The quote for a call whose price nothing published bounds: the first of `keys` found in the operator price
 * table (GENPLAT_PRICE_TABLE; most specific key first), else the per-call ceiling, which the ceilings then
 * let through exactly and no further. `why` says what is unpublished.
 */
export function unboundedEstimate(
  config: Pick<Config, 'priceTable' | 'maxCreditsPerCall'>,
  keys: readonly string[],
  why: string,
): Estimate {
  const key = keys.find((k) => config.priceTable[k] !== undefined);
  if (key !== undefined) {
    const credits = config.priceTable[key]!;
    return estimate(
      credits,
      `price not published (${why}); ${credits} credits from the operator price table (GENPLAT_PRICE_TABLE "${key}")`,
      { bounded: false },
    );
  }
  return estimate(
    config.maxCreditsPerCall,
    `price not published (${why}); quoted at the per-call ceiling of ${config.maxCreditsPerCall} credits (GENPLAT_MAX_CREDITS_PER_CALL); set GENPLAT_PRICE_TABLE "${keys[0]}" for a tighter figure`,
    { bounded: false },
  );
}

/**
 * Every billable estimate passes here before consent (src/paid/pipeline.ts). A bounded 0 is not a price
 * for a call that may charge: it would pass every ceiling and threshold while the platform bills. Such a
 * quote becomes unbounded (operator table or ceiling, explicit consent). Negative and NaN figures are left to
 * the guard, which refuses them unsent.
 */
export function finaliseEstimate(
  config: Pick<Config, 'priceTable' | 'maxCreditsPerCall'>,
  tool: string,
  e: Estimate,
): Estimate {
  if (!e.bounded || e.credits !== 0) return e;
  return unboundedEstimate(config, [tool], `the published figure came to 0 credits (${e.basis})`);
}

/** POST /video/generate: "Cost is 1 API credit unit (100 displayed credits) per video." */
export const TALKING_VIDEO_CREDITS = 100;
/** POST /custom-avatar/generate: "Cost is 1 API credit unit (100 displayed credits)." */
export const CUSTOM_AVATAR_CREDITS = 100;
/** POST /product-in-hand/<vendorL>-v2/generate: "Cost is 100 displayed credits per generation." */
export const PRODUCT_V2_CREDITS = 100;
/** <vendorM>-human: "audio under 15 s costs 100; audio of 15-30 s costs 200 (displayed credits)." */
export const PRODUCT_HUMAN_SHORT_CREDITS = 100;
export const PRODUCT_HUMAN_LONG_CREDITS = 200;
export const PRODUCT_HUMAN_SHORT_LIMIT_S = 15;
/** <vendorF> route: "Cost is scenes.length x (100 for fast, 200 for pro) displayed credits." */
export const SCENE_CREDITS = { fast: 100, pro: 200 } as const;

export function talkingVideoEstimate(): Estimate {
  return estimate(TALKING_VIDEO_CREDITS, 'fixed price of POST /video/generate: 100 credits per video');
}

export function customAvatarEstimate(): Estimate {
  return estimate(CUSTOM_AVATAR_CREDITS, 'fixed price of a custom avatar: 100 credits');
}

export function productV2Estimate(): Estimate {
  return estimate(PRODUCT_V2_CREDITS, 'fixed price of the v2 product-in-hand engine: 100 credits per generation');
}

/**
 * <vendorM>-human by audio length. The length is not known before sending: a script is spoken by the platform's
 * TTS at a pace nobody publishes (a guess from words or characters was beaten by a script of web addresses,
 * issue 27), and a voice_url's length is a claim, not a measurement. So callers pass `undefined` and get the
 * upper tier (the spec caps this engine's audio at 30 s: the 15-30 s tier is the most it charges).
 */
export function productHumanEstimate(audioSeconds: number | undefined): Estimate {
  if (audioSeconds === undefined) {
    return estimate(
      PRODUCT_HUMAN_LONG_CREDITS,
      'human engine: 100 credits under 15 s of audio, 200 for 15-30 s (audio at most 30 s); audio length unknown before sending, so the upper price',
    );
  }
  const short = audioSeconds < PRODUCT_HUMAN_SHORT_LIMIT_S;
  return estimate(
    short ? PRODUCT_HUMAN_SHORT_CREDITS : PRODUCT_HUMAN_LONG_CREDITS,
    `human engine: ${audioSeconds} s of audio (${short ? 'under 15 s: 100' : '15-30 s: 200'} credits)`,
  );
}

export function scenesEstimate(scenes: number, tier: 'fast' | 'pro'): Estimate {
  return estimate(
    scenes * SCENE_CREDITS[tier],
    `${scenes} scene(s) x ${SCENE_CREDITS[tier]} credits (${tier}) on the scenes engine`,
  );
}

/** What a template call sends that its price may depend on: its fields and their types. */
export interface TemplateCall {
  id: string;
  credit: string | number | undefined;
  /** Field types by name (require_fields). */
  types: Readonly<Record<string, string>>;
  /** Field values by name, as sent. */
  fields: Readonly<Record<string, string>>;
}

/** Field types whose value is text (the spec shows input, image, textarea); every other type is media. */
const TEMPLATE_TEXT_TYPES = new Set(['input', 'textarea']);

/**
 * Content library: "Cost follows the template's credit value", free text ("150 credits", "0.5", "2 credits
 * per reference image"). Read by the one price grammar (docs/pricing.md; issue 27: no reader of its own), a
 * bare figure as API units; a value it cannot read in full ("from 100", "varies", "1.000") is unpublished →
 * the operator table or the ceiling, with explicit consent. Media items for a per-image price: every field of a
 * non-text type (image and any type the spec does not show) and every text field whose value is media-shaped.
 */
export function templateEstimate(config: Pick<Config, 'priceTable' | 'maxCreditsPerCall'>, t: TemplateCall): Estimate {
  let media = 0;
  for (const [name, value] of Object.entries(t.fields)) {
    const type = (t.types[name] ?? '').toLowerCase();
    if (!TEMPLATE_TEXT_TYPES.has(type) || isMediaValue(value)) media++;
  }
  const b = boundPrice(t.credit, { outputs: 1, seconds: undefined, media, settings: {} });
  if (b.bounded) return estimate(b.credits, `the template's credit value ${JSON.stringify(t.credit)}: ${b.detail}`);
  return unboundedEstimate(config, [`create_template_video:${t.id}`, 'create_template_video'], b.reason);
}

export function gestureEstimate(config: Pick<Config, 'priceTable' | 'maxCreditsPerCall'>): Estimate {
  return unboundedEstimate(
    config,
    ['animate_gesture'],
    'the platform reports the gesture price only after submission, in credits_charged',
  );
}

/**
 * Upscale by quote. The spec says the quote "is informational; submission obtains its own current quote", so it
 * proves no bound (issue 18 review): the call is quoted unbounded — explicit consent, never auto-approved — at
 * the larger of the platform's quote and the operator's figure (GENPLAT_PRICE_TABLE "upscale_video") or the
 * per-call ceiling, so the ceilings never count less than the platform itself announced.
 */
export function upscaleEstimate(
  config: Pick<Config, 'priceTable' | 'maxCreditsPerCall'>,
  quoteCredits: number,
): Estimate {
  const why = `the upscale quote of ${quoteCredits} credits is informational (spec): submission obtains its own current quote`;
  const base = unboundedEstimate(config, ['upscale_video'], why);
  if (quoteCredits <= base.credits) return base;
  return estimate(quoteCredits, `price not published (${why}); quoted at the platform's own figure`, {
    bounded: false,
  });
}

/** The platform's informational upscale quote, as displayed credits and API units (quote_upscale's answer). */
export function upscaleQuoteFigure(quoteCredits: number): Estimate {
  return estimate(quoteCredits, 'the upscale quote (POST /upscale/quote); informational: submission takes its own');
}

/** Dedicated family: `estimated_credits` comes back only after submission, so no pre-send bound exists. */
export function familyEstimate(config: Pick<Config, 'priceTable' | 'maxCreditsPerCall'>, model: string): Estimate {
  return unboundedEstimate(
    config,
    [`create_family_video:${model}`, 'create_family_video'],
    'the platform returns estimated_credits only after submission',
  );
}

/**
 * Shoppable: the spec publishes neither a shoppable price nor the packs shape, so a pack's price bounds the
 * quote only when it is a price text with its unit word ("300 credits", read by the price grammar): a bare
 * number, or a field other than `credits`, proves nothing (issue 27). Several candidate prices (a video whose
 * duration is not known): every one must be bounded, and the dearest applies.
 */
export function shoppableEstimate(
  config: Pick<Config, 'priceTable' | 'maxCreditsPerCall'>,
  media: 'image' | 'video',
  prices: readonly (string | number)[] | undefined,
  category: string,
  /** Product images the call sends (a "per image" or "per reference image" term counts them); undefined = unknown. */
  imagesSent?: number,
): Estimate {
  const tool = `create_shoppable_${media}`;
  const keys = [`${tool}:${category}`, tool];
  if (prices === undefined) return unboundedEstimate(config, keys, `the packs list gives no price for this ${media}`);
  if (prices.length === 0) {
    return unboundedEstimate(config, keys, `the packs list prices no tier for this ${media}'s duration`);
  }
  let dearest: { credits: number; text: string } | undefined;
  for (const p of prices) {
    const b = boundPrice(p, { ...NO_USAGE, media: imagesSent }, { bare: 'unbounded' });
    if (!b.bounded) return unboundedEstimate(config, keys, `the pack's ${b.reason}`);
    if (!dearest || b.credits > dearest.credits) dearest = { credits: b.credits, text: String(p) };
  }
  return estimate(dearest!.credits, `the pack's credits ${JSON.stringify(dearest!.text)} from GET /shopable/packs`);
}
