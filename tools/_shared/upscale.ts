/**
 * What quote_upscale and upscale_video share (spec "Video upscale"): the six body fields, the `video_type`
 * list with its vendor-named values resolved from config, the exact body (the platform is strict: nothing
 * else, never user_id or webhook_url), and progress while the slow quote runs.
 */
import { z } from 'zod';
import type { VendorLetter, VendorMap } from '../../src/config.js';
import type { ToolContext } from '../../src/define-tool.js';
import { UserInputError } from '../../src/errors.js';

export const PLAIN_VIDEO_TYPES = [
  'video',
  'product-in-hand',
  'b-roll',
  'gestures',
  'scenes',
  'prompt_studio_video',
  'template_ads',
  'platform_background_removal',
] as const;

/** The seven vendor-named values exactly as the spec writes them; the letters come from GENPLAT_VENDORS. */
export const VENDOR_VIDEO_TYPES = [
  '<vendorA>-animate',
  '<vendorB>2',
  '<vendorC>_2_video',
  '<vendorC>_25_video',
  '<vendorD>_video',
  '<vendorE>_video',
  '<vendorF>3_extend',
] as const;

const PLACEHOLDER = /<vendor([A-M])>/;

/** The accepted `video_type` values for this config, and the vendor letters whose values are unavailable. */
export function upscaleVideoTypes(vendors: VendorMap): { values: string[]; unset: VendorLetter[] } {
  const values: string[] = [...PLAIN_VIDEO_TYPES];
  const unset = new Set<VendorLetter>();
  for (const template of VENDOR_VIDEO_TYPES) {
    const letter = PLACEHOLDER.exec(template)?.[1] as VendorLetter;
    const name = vendors[letter];
    if (name) values.push(template.replace(PLACEHOLDER, name));
    else unset.add(letter);
  }
  return { values, unset: [...unset] };
}

/**
 * zod enums are static and the vendor names are config, so `video_type` is a string checked here.
 * @throws UserInputError on `video_type`, naming GENPLAT_VENDORS when some vendor-named values are unavailable.
 */
export function checkVideoType(value: string, vendors: VendorMap): void {
  const { values, unset } = upscaleVideoTypes(vendors);
  if (values.includes(value)) return;
  const missing = unset.length
    ? `; values named after <vendor${unset.join('>, <vendor')}> are unavailable until GENPLAT_VENDORS sets ${unset.join(', ')}`
    : '';
  throw new UserInputError('video_type', `must be one of ${values.join(', ')}${missing}`);
}

const id = (what: string) => z.string().min(1).max(256).describe(what);

export const MODEL_FAMILIES = ['precision', 'generative', 'creative'] as const;
export const TARGET_RESOLUTIONS = ['720p', '1080p', '1440p', '2160p'] as const;

/** Field names are the platform's own (design.md section 2). */
export const upscaleFields = {
  video_id: id('id of a finished video'),
  project_id: id('its project_id'),
  video_type: id('e.g. video, gestures'),
  model_family: z.enum(MODEL_FAMILIES).describe('model family'),
  model: id('model name'),
  target_resolution: z.enum(TARGET_RESOLUTIONS).describe('output short side'),
};

export type UpscaleInput = z.infer<z.ZodObject<typeof upscaleFields>>;

/** Exactly the six fields: the platform rejects unknown ones, user_id and webhook_url included. */
export function upscaleBody(i: UpscaleInput): Record<string, string> {
  return {
    video_id: i.video_id,
    project_id: i.project_id,
    video_type: i.video_type,
    model_family: i.model_family,
    model: i.model,
    target_resolution: i.target_resolution,
  };
}

/**
 * Progress cadence while the quote probes the video. Hosts with a progress-aware idle timer (Claude Code,
 * SDK clients with resetTimeoutOnProgress; mcp-notes 2.13) restart it on each notification, and 5 s is far
 * inside any such timer while costing the client almost nothing.
 */
export const QUOTE_PROGRESS_INTERVAL_MS = 5_000;

/** The quote itself: the platform may probe for up to 370 s (spec), so the caller hears progress meanwhile. */
export async function quoteWithProgress(input: UpscaleInput, ctx: ToolContext) {
  const started = Date.now();
  const tick = () => {
    const s = Math.round((Date.now() - started) / 1000);
    void ctx.progress({ progress: s, message: `probing the video (${s} s; the platform may take up to 370 s)` });
  };
  tick();
  const timer = setInterval(tick, QUOTE_PROGRESS_INTERVAL_MS);
  try {
    return await ctx.client.upscale.quote(upscaleBody(input), { signal: ctx.signal });
  } finally {
    clearInterval(timer);
  }
}
