/**
 * Validators for the enterprise video models. Same contract as image-edit.ts. Where the spec gives no
 * allowed values, only types are checked; where it gives no price formula, the sandbox price is invented
 * and listed in catalog.ts.
 */
import { type Body, bad, optionalBoolean, optionalEnum, optionalNumber, optionalString } from '../check.js';
import {
  checkShape,
  type ModelQuote,
  mediaUrl,
  mediaUrls,
  optionalInteger,
  optionalPrompt,
  optionalStringOfAnyValue,
  type RuleEnv,
  requirePrompt,
} from './rules.js';

/** Sandbox price per second of <vendorH> i2v by resolution ("quoted by duration and resolution"). */
export const H_I2V_CREDITS_PER_SECOND: Record<string, number> = { '360p': 4, '720p': 8, '1080p': 12, '4k': 24 };
/** Fields <vendorH> rejects by name (spec), beyond the global billing controls. */
const H_REJECTED = ['seed', 'negative_prompt', 'generate_audio', 'price', 'prices', 'client_price'] as const;
/** "Reference-video downloads and edit sources are limited to 200 MiB": checkable here only for data URIs. */
const H_MAX_BYTES = 200 * 1024 * 1024;

/** <vendorH>-omni-flash-1-1-i2v: webhook supported, data URIs allowed, not marked strict. */
export function validateHI2v(params: Body, env: RuleEnv, model = 'i2v'): ModelQuote {
  checkShape(params, 'any', model);
  for (const f of H_REJECTED) if (f in params) bad(`${f}: not accepted by ${model}`);
  requirePrompt(params, { min: 1, max: 20_000 });
  for (const field of ['image_url', 'end_image_url']) {
    const url = mediaUrl(params, field, env, { required: field === 'image_url', allowDataUri: true });
    if (url?.startsWith('data:') && Math.floor(((url.length - url.indexOf(',') - 1) * 3) / 4) > H_MAX_BYTES)
      bad(`${field}: media is larger than 200 MiB`);
  }
  const resolution = optionalEnum(params, 'resolution', ['360p', '720p', '1080p', '4k'] as const) ?? '720p';
  const duration = optionalInteger(params, 'duration', { min: 3, max: 10 }) ?? 8;
  optionalEnum(params, 'aspect_ratio', ['16:9', '9:16'] as const);
  return { credits: H_I2V_CREDITS_PER_SECOND[resolution]! * duration, outputCount: 1 };
}

/** <vendorJ>-broll: polling-only, strict, 50 credits per generation (spec). */
export function validateJBroll(params: Body, env: RuleEnv, model = 'broll'): ModelQuote {
  checkShape(params, ['prompt', 'image_url'], model);
  requirePrompt(params, { min: 1, max: 2000 });
  mediaUrl(params, 'image_url', env, { required: true });
  return { credits: 50, outputCount: 1 };
}

/** <vendorC>-1-5-pro: polling-only, strict, one scene per request, 50 credits (spec). */
export function validateC15Pro(params: Body, env: RuleEnv, model = '1-5-pro'): ModelQuote {
  checkShape(params, ['prompt', 'image_url', 'aspect_ratio', 'duration'], model);
  requirePrompt(params, { min: 1, max: 2000 });
  mediaUrl(params, 'image_url', env, { required: false });
  optionalEnum(params, 'aspect_ratio', ['9:16', '16:9', '1:1', '21:9', '4:3', '3:4'] as const);
  const duration = optionalNumber(params, 'duration');
  if (duration !== undefined && duration !== 12) bad('duration: the only allowed value is 12');
  return { credits: 50, outputCount: 1 };
}

/** Sandbox prices for <vendorD>-imagine-video-1-5-r2v ("quoted by duration, resolution and image count"). */
export const R2V_CREDITS_PER_SECOND: Record<string, number> = { '480p': 4, '720p': 6, '1080p': 10 };
export const R2V_CREDITS_PER_IMAGE = 2;
export const R2V_DEFAULT_DURATION = 6;

/** <vendorD>-imagine-video-1-5-r2v: duration must be a JSON integer; other values are not shown. */
export function validateR2v(params: Body, env: RuleEnv, model = 'r2v'): ModelQuote {
  checkShape(params, 'any', model);
  requirePrompt(params, { nonBlank: true });
  const refs = mediaUrls(params, 'reference_image_urls', env, { required: true, min: 1 })!;
  const duration = optionalInteger(params, 'duration', { min: 1 }) ?? R2V_DEFAULT_DURATION;
  const resolution = optionalStringOfAnyValue(params, 'resolution') ?? '720p';
  optionalStringOfAnyValue(params, 'aspect_ratio');
  optionalBoolean(params, 'enable_safety_checker');
  const perSecond = R2V_CREDITS_PER_SECOND[resolution] ?? R2V_CREDITS_PER_SECOND['720p']!;
  return { credits: perSecond * duration + R2V_CREDITS_PER_IMAGE * refs.length, outputCount: 1 };
}

/** Sandbox price per second of <vendorC>-2-0-i2v ("depends on duration and resolution"). */
export const C20_CREDITS_PER_SECOND: Record<string, number> = { '480p': 3, '720p': 6, '1080p': 12 };
export const C20_DEFAULT_DURATION = 5;

/** <vendorC>-2-0-i2v: duration may be a string or a number (e.g. "5" or 5). */
export function validateC20I2v(params: Body, env: RuleEnv, model = '2-0-i2v'): ModelQuote {
  checkShape(params, 'any', model);
  requirePrompt(params);
  mediaUrl(params, 'image_url', env, { required: true });
  mediaUrl(params, 'end_image_url', env, { required: false });
  const raw = params.duration;
  let duration = C20_DEFAULT_DURATION;
  if (raw !== undefined && raw !== null) {
    const n = typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
    if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) bad('duration: must be a positive number of seconds');
    duration = n;
  }
  const resolution = optionalStringOfAnyValue(params, 'resolution') ?? '720p';
  optionalStringOfAnyValue(params, 'aspect_ratio');
  optionalBoolean(params, 'generate_audio');
  const perSecond = C20_CREDITS_PER_SECOND[resolution] ?? C20_CREDITS_PER_SECOND['720p']!;
  return { credits: Math.ceil(perSecond * duration), outputCount: 1 };
}

/** Sandbox price of <vendorE>-h3-max-3d-to-video by resolution (the source is not probed). */
export const E_3D_CREDITS: Record<string, number> = { '720p': 80, '1080p': 160 };

/** <vendorE>-h3-max-3d-to-video. */
export function validateE3dToVideo(params: Body, env: RuleEnv, model = '3d-to-video'): ModelQuote {
  checkShape(params, 'any', model);
  mediaUrl(params, 'video_url', env, { required: true });
  optionalPrompt(params);
  mediaUrls(params, 'reference_image_urls', env, { required: false, min: 0 });
  optionalInteger(params, 'max_generated_reference_images', { min: 0 });
  const resolution = optionalString(params, 'resolution', { min: 1 }) ?? '720p';
  return { credits: E_3D_CREDITS[resolution] ?? E_3D_CREDITS['720p']!, outputCount: 1 };
}

/** <vendorD>-video-t2v: "10 and 15 seconds are priced" (50 / 100 credits), so only those are accepted. */
export const T2V_CREDITS: Record<number, number> = { 10: 50, 15: 100 };

export function validateDT2v(params: Body, _env: RuleEnv, model = 'video-t2v'): ModelQuote {
  checkShape(params, 'any', model);
  requirePrompt(params);
  const duration = optionalNumber(params, 'duration') ?? 10;
  const credits = T2V_CREDITS[duration];
  if (credits === undefined) bad('duration: must be 10 or 15 (the priced durations)');
  optionalStringOfAnyValue(params, 'aspect_ratio');
  return { credits, outputCount: 1 };
}
