/**
 * Shared parameter rules for enterprise model validators. Pure functions: the only outside knowledge they
 * need (is a URL public?) is passed in as `env`, so unit tests can call them without a running simulator.
 * Deliberately independent of the tools' zod schemas: this is the simulator's own reading of the spec.
 */
import { type Body, bad, optionalString, rejectBillingControls, rejectUnknown, requireString } from '../check.js';

export interface RuleEnv {
  isPublicUrl(url: string, opts?: { allowDataUri?: boolean }): boolean;
}

/** What a valid request costs and produces. */
export interface ModelQuote {
  credits: number;
  outputCount: number;
}

export type ModelValidator = (params: Body, env: RuleEnv) => ModelQuote;

/** Strict models reject every param they do not list; billing controls are rejected everywhere (convention 10). */
export function checkShape(params: Body, allowed: readonly string[] | 'any', model: string): void {
  rejectBillingControls(params);
  if (allowed !== 'any') rejectUnknown(params, allowed, model);
}

export function requirePrompt(params: Body, opts: { min?: number; max?: number; nonBlank?: boolean } = {}): string {
  const prompt = requireString(params, 'prompt', { min: opts.min ?? 1, max: opts.max });
  if (opts.nonBlank && prompt.trim() === '') bad('prompt: must not be blank');
  return prompt;
}

export function optionalPrompt(params: Body, opts: { max?: number } = {}): string | undefined {
  return optionalString(params, 'prompt', { max: opts.max });
}

/** A media field: a public http(s) URL, or additionally a base64 data URI where the model allows it. */
export function mediaUrl(
  params: Body,
  field: string,
  env: RuleEnv,
  opts: { required: boolean; allowDataUri?: boolean },
): string | undefined {
  const v = opts.required ? requireString(params, field) : optionalString(params, field, { min: 1 });
  if (v === undefined) return undefined;
  checkMedia(field, v, env, opts.allowDataUri ?? false);
  return v;
}

export function mediaUrls(
  params: Body,
  field: string,
  env: RuleEnv,
  opts: { required: boolean; min?: number; max?: number; allowDataUri?: boolean },
): string[] | undefined {
  const v = params[field];
  if (v === undefined || v === null) {
    if (opts.required) bad(`${field}: is required`);
    return undefined;
  }
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) bad(`${field}: must be an array of strings`);
  const min = opts.min ?? 1;
  if (v.length < min) bad(`${field}: must have at least ${min} item(s)`);
  if (opts.max !== undefined && v.length > opts.max) bad(`${field}: must have at most ${opts.max} item(s)`);
  v.forEach((url: string, i: number) => {
    checkMedia(`${field}[${i}]`, url, env, opts.allowDataUri ?? false);
  });
  return v as string[];
}

function checkMedia(field: string, url: string, env: RuleEnv, allowDataUri: boolean): void {
  if (allowDataUri && /^data:[^,]*;base64,/i.test(url)) {
    if (!env.isPublicUrl(url, { allowDataUri: true })) bad(`${field}: must be a public URL or a base64 data URI`);
    return;
  }
  if (url.startsWith('data:')) bad(`${field}: data URIs are not accepted here; use a public http(s) URL`);
  if (!env.isPublicUrl(url)) bad(`${field}: must be a public http(s) media URL`);
}

/** An integer param; strings such as "5" and fractions such as 5.5 are rejected. */
export function optionalInteger(params: Body, field: string, opts: { min?: number; max?: number } = {}) {
  const v = params[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) bad(`${field}: must be an integer`);
  if (opts.min !== undefined && v < opts.min) bad(`${field}: must be at least ${opts.min}`);
  if (opts.max !== undefined && v > opts.max) bad(`${field}: must be at most ${opts.max}`);
  return v;
}

/** Type check only, for params whose allowed values the spec does not show. */
export function optionalStringOfAnyValue(params: Body, field: string): string | undefined {
  return optionalString(params, field, { min: 1 });
}

/**
 * `image_size`: a preset name (presets are not listed by the spec, so any non-empty string), or
 * `{width, height}` with both positive integers and nothing else inside the object.
 */
export function optionalImageSize(params: Body, field = 'image_size'): { width: number; height: number } | undefined {
  const v = params[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') {
    if (v === '') bad(`${field}: must be a preset name or {width, height}`);
    return undefined;
  }
  if (typeof v !== 'object' || Array.isArray(v)) bad(`${field}: must be a preset name or {width, height}`);
  const obj = v as Body;
  for (const key of Object.keys(obj))
    if (key !== 'width' && key !== 'height') bad(`${field}.${key}: unknown field; only width and height`);
  for (const key of ['width', 'height'] as const) {
    const n = obj[key];
    if (n === undefined || n === null) bad(`${field}.${key}: is required`);
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) bad(`${field}.${key}: must be a positive integer`);
  }
  return { width: obj.width as number, height: obj.height as number };
}

/** `colors`: an array of `{r, g, b}` integers; 0-255 because they are 8-bit colour channels. */
export function optionalColors(params: Body, field = 'colors'): void {
  const v = params[field];
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) bad(`${field}: must be an array of {r, g, b}`);
  v.forEach((c: unknown, i: number) => {
    if (!c || typeof c !== 'object' || Array.isArray(c)) bad(`${field}[${i}]: must be an object {r, g, b}`);
    const obj = c as Body;
    for (const key of Object.keys(obj))
      if (!['r', 'g', 'b'].includes(key)) bad(`${field}[${i}].${key}: unknown field; only r, g, b`);
    for (const ch of ['r', 'g', 'b']) {
      const n = obj[ch];
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 255)
        bad(`${field}[${i}].${ch}: must be an integer 0-255`);
    }
  });
}
