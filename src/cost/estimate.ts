/**
 * The spec's prices as pure functions (platform-api.md, "Limits" → "Credit costs", and each endpoint's
 * "Cost" line). All figures are displayed credits; API units = credits / 100 (spec, general convention 4).
 * Where the spec gives no price before submission, the estimate is an assumption and its `basis` says so:
 * the cost guard then still asks for consent with a figure, and the ledger later records the real charge.
 */
import { UserInputError } from '../errors.js';
import { type Estimate, estimate } from '../jobs/envelope.js';

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
/** Gestures: the spec says only "reported in credits_charged"; 100 is our assumption (same as a talking video). */
export const GESTURE_ASSUMED_CREDITS = 100;
/**
 * Dedicated family (POST /<vendorC>/generate): the price comes back as `estimated_credits` only after
 * submission. Assumed per-model figures so the guard has a number to show; the README marks them assumed.
 */
export const FAMILY_ASSUMED_CREDITS: Record<string, number> = { default: 200 };
/** Shoppable: the packs response shape is "not shown"; used when a pack carries no credits figure. */
export const SHOPPABLE_ASSUMED_CREDITS = { image: 100, video: 200 } as const;

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
 * <vendorM>-human by audio length. When the length is not known before sending (a script spoken by TTS), the
 * caller passes `undefined` and gets the upper price, so consent covers the worst case.
 */
export function productHumanEstimate(audioSeconds: number | undefined): Estimate {
  if (audioSeconds === undefined) {
    return estimate(
      PRODUCT_HUMAN_LONG_CREDITS,
      'human engine: 100 credits under 15 s of audio, 200 for 15-30 s; audio length unknown before sending, so the upper price',
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

/**
 * Content library: "Cost follows the template's credit value", a string (e.g. "100", "150 credits").
 * @throws UserInputError on `field` when the template's credit cannot be read as a number.
 */
export function templateEstimate(credit: string | number | undefined, field = 'template_id'): Estimate {
  const n = typeof credit === 'number' ? credit : Number(/(\d+(?:\.\d+)?)/.exec(credit ?? '')?.[1] ?? Number.NaN);
  if (!Number.isFinite(n) || n < 0) {
    throw new UserInputError(
      field,
      `the template's credit value ${JSON.stringify(credit ?? null)} is not a number, so its cost is unknown`,
      'Check the template with list_templates (or pick another); nothing was sent or charged.',
    );
  }
  return estimate(n, `the template's credit value (${JSON.stringify(credit)})`);
}

export function gestureEstimate(): Estimate {
  return estimate(
    GESTURE_ASSUMED_CREDITS,
    'assumed: the platform states the gesture price only after submission (credits_charged); 100 credits assumed',
  );
}

/**
 * Upscale by quote: `quote.credits` from POST /upscale/quote, read as displayed credits (the spec's
 * default unit). The platform takes its own current quote at submission, so it may differ slightly.
 */
export function upscaleEstimate(quoteCredits: number): Estimate {
  return estimate(quoteCredits, 'the upscale quote (POST /upscale/quote); submission takes its own current quote');
}

export function familyEstimate(model: string): Estimate {
  const credits = FAMILY_ASSUMED_CREDITS[model] ?? FAMILY_ASSUMED_CREDITS.default!;
  return estimate(
    credits,
    `assumed ${credits} credits for ${model}: the platform returns estimated_credits only after submission`,
  );
}

export function shoppableEstimate(media: 'image' | 'video', packCredits: number | undefined): Estimate {
  if (packCredits !== undefined && Number.isFinite(packCredits)) {
    return estimate(packCredits, 'the pack’s credits figure from GET /shopable/packs');
  }
  return estimate(
    SHOPPABLE_ASSUMED_CREDITS[media],
    `assumed ${SHOPPABLE_ASSUMED_CREDITS[media]} credits: the packs list gives no price for this ${media}`,
  );
}
