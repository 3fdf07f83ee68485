/**
 * Validators for the enterprise image edit models whose params the spec shows. Each is a pure function
 * `(params, env) => {credits, outputCount}` that throws `SimHttpError(400, "<param>: <rule>")`.
 * Prices the spec leaves as "depends on …" are sandbox inventions, documented in catalog.ts.
 */
import { type Body, bad, optionalBoolean, optionalEnum, optionalNumber, optionalString } from '../check.js';
import { checkFlareSize } from './image-size.js';
import { listedMedia, requestedOutputs } from './outputs.js';
import {
  checkShape,
  type ModelQuote,
  mediaUrl,
  mediaUrls,
  optionalColors,
  optionalImageSize,
  optionalInteger,
  optionalStringOfAnyValue,
  type RuleEnv,
  requirePrompt,
} from './rules.js';

const FORMATS = ['png', 'jpeg', 'webp'] as const;
const FLARE_QUALITIES = ['low', 'medium', 'high', 'auto', 'xhigh', 'max'] as const;

/** Sandbox price per 1024x1024-equivalent image by quality (the spec: "depends on size, quality and output count"). */
export const FLARE_QUALITY_CREDITS: Record<string, number> = {
  low: 4,
  medium: 8,
  auto: 12,
  high: 16,
  xhigh: 24,
  max: 32,
};
const MEGAPIXEL = 1024 * 1024;

function sizePrice(perUnit: number, width: number, height: number): number {
  return perUnit * Math.max(1, Math.ceil((width * height) / MEGAPIXEL));
}

/** <vendorG>-image-2.5-flare-edit: polling-only, strict, every rule of the spec's table. */
export function validateFlareEdit(params: Body, env: RuleEnv, model = 'flare-edit'): ModelQuote {
  checkShape(
    params,
    ['prompt', 'image_urls', 'size', 'quality', 'mask_url', 'background', 'output_format', 'output_compression'],
    model,
  );
  requirePrompt(params, { min: 1, max: 5000 });
  mediaUrls(params, 'image_urls', env, { required: true, min: 1, max: 2 });
  const size = optionalString(params, 'size', { min: 1 }) ?? 'auto';
  const { width, height } = checkFlareSize(size);
  const quality = optionalEnum(params, 'quality', FLARE_QUALITIES) ?? 'auto';
  mediaUrl(params, 'mask_url', env, { required: false });
  const background = optionalEnum(params, 'background', ['auto', 'opaque', 'transparent'] as const);
  const format = optionalEnum(params, 'output_format', FORMATS) ?? 'png';
  const compression = optionalInteger(params, 'output_compression', { min: 0, max: 100 });
  if (background === 'transparent' && format === 'jpeg')
    bad('background: transparent requires output_format png or webp');
  if (compression !== undefined && format === 'png')
    bad('output_compression: accepted only with output_format jpeg or webp');
  return { credits: sizePrice(FLARE_QUALITY_CREDITS[quality]!, width, height), outputCount: 1 };
}

export const SUNBURST_MAX_CREDITS = 64;

/**
 * <vendorG>-image-2.5-sunburst-edit: same fields as flare, but the spec shows no allowed values, bounds or
 * strictness, so only types (and the public-URL rule for media) are checked. Priced at half of flare.
 */
export function validateSunburstEdit(params: Body, env: RuleEnv, model = 'sunburst-edit'): ModelQuote {
  checkShape(params, 'any', model);
  requirePrompt(params);
  mediaUrls(params, 'image_urls', env, { required: true, min: 1 });
  const size = optionalStringOfAnyValue(params, 'size');
  const quality = optionalStringOfAnyValue(params, 'quality') ?? 'auto';
  mediaUrl(params, 'mask_url', env, { required: false });
  optionalStringOfAnyValue(params, 'background');
  optionalStringOfAnyValue(params, 'output_format');
  optionalNumber(params, 'output_compression');
  const m = size ? /^(\d+)x(\d+)$/.exec(size) : null;
  const [w, h] = m ? [Number(m[1]), Number(m[2])] : [1024, 1024];
  const perUnit = Math.ceil((FLARE_QUALITY_CREDITS[quality] ?? FLARE_QUALITY_CREDITS.auto!) / 2);
  // Its catalog text publishes "2-64 credits per image": the sandbox keeps to it whatever size is asked. The
  // spec: "cost depends on size, quality and output count", so each output asked for is charged.
  const n = requestedOutputs(params);
  return { credits: Math.min(SUNBURST_MAX_CREDITS, sizePrice(perUnit, w, h)) * n, outputCount: n };
}

/** Sandbox price per image of <vendorI>-edit by resolution ("each image consumes credits"). */
export const I_EDIT_CREDITS: Record<string, number> = { '1K': 15, '2K': 20, '4K': 30 };

/** <vendorI>-edit: polling-only, strict. */
export function validateIEdit(params: Body, env: RuleEnv, model = 'edit'): ModelQuote {
  checkShape(params, ['prompt', 'image_urls', 'num_images', 'aspect_ratio', 'output_format', 'resolution'], model);
  requirePrompt(params, { min: 1, max: 2000 });
  mediaUrls(params, 'image_urls', env, { required: true, min: 1, max: 2 });
  const n = optionalInteger(params, 'num_images', { min: 1, max: 4 }) ?? 1;
  optionalEnum(params, 'aspect_ratio', [
    '21:9',
    '16:9',
    '3:2',
    '4:3',
    '5:4',
    '1:1',
    '4:5',
    '3:4',
    '2:3',
    '9:16',
  ] as const);
  optionalEnum(params, 'output_format', FORMATS);
  const resolution = optionalEnum(params, 'resolution', ['1K', '2K', '4K'] as const) ?? '1K';
  return { credits: I_EDIT_CREDITS[resolution]! * n, outputCount: n };
}

/** <vendorD>-imagine-image-edit: webhook supported; not marked strict. 10 credits per generation (spec). */
export function validateImagineImageEdit(params: Body, env: RuleEnv, model = 'imagine-image-edit'): ModelQuote {
  checkShape(params, 'any', model);
  requirePrompt(params, { min: 1, max: 2000 });
  mediaUrls(params, 'image_urls', env, { required: true, min: 1, max: 2 });
  optionalEnum(params, 'resolution', ['1k', '2k', '4k'] as const);
  optionalEnum(params, 'output_format', FORMATS);
  return { credits: 10, outputCount: 1 };
}

/** <vendorK>-v3-edit: image_size preset or {width, height}; colors palette; one output. */
export function validateKV3Edit(params: Body, env: RuleEnv, model = 'v3-edit'): ModelQuote {
  checkShape(params, 'any', model);
  requirePrompt(params);
  mediaUrl(params, 'image_url', env, { required: true });
  optionalImageSize(params);
  optionalString(params, 'style');
  optionalColors(params);
  optionalNumber(params, 'strength');
  optionalString(params, 'negative_prompt');
  // Spec: "cost depends on model settings and output count": 20 per output asked for.
  const n = requestedOutputs(params);
  return { credits: 20 * n, outputCount: n };
}

/** <vendorA>-v2.6-edit: max_images outputs, each charged. */
export function validateAV26Edit(params: Body, env: RuleEnv, model = 'v2.6-edit'): ModelQuote {
  checkShape(params, 'any', model);
  requirePrompt(params);
  mediaUrls(params, 'image_urls', env, { required: true, min: 1 });
  optionalImageSize(params);
  const n = optionalInteger(params, 'max_images', { min: 1 }) ?? 1;
  optionalBoolean(params, 'enable_safety_checker');
  optionalString(params, 'negative_prompt');
  optionalBoolean(params, 'enable_prompt_expansion');
  return { credits: 10 * n, outputCount: n };
}

/**
 * Extra edit variants whose params the spec does not show: a prompt and 1..maxRefs image references; each
 * output at `perImage`, plus `perRef` per reference image in any list (image_urls, reference_image_urls…).
 */
export function genericEdit(perImage: number, maxRefs: number, perRef = 0) {
  return (params: Body, env: RuleEnv, model = 'edit'): ModelQuote => {
    checkShape(params, 'any', model);
    requirePrompt(params);
    mediaUrls(params, 'image_urls', env, { required: true, min: 1, max: maxRefs });
    const n = requestedOutputs(params);
    return { credits: perImage * n + perRef * listedMedia(params), outputCount: n };
  };
}

/** Text-to-image models whose params the spec does not show: a non-empty prompt, the rest accepted; per output. */
export function textToImage(perImage: number) {
  return (params: Body, _env: RuleEnv, model = 't2i'): ModelQuote => {
    checkShape(params, 'any', model);
    requirePrompt(params);
    const n = requestedOutputs(params);
    return { credits: perImage * n, outputCount: n };
  };
}
