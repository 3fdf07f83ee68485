/**
 * Upscale request rules (spec "Video upscale"): the strict body, the source limits, the geometry rule and
 * the sandbox's price table. Pure functions over an already-found owned video.
 */
import type { VendorMap } from '../../config.js';
import { type Body, bad, rejectUnknown, requireEnum, requireString } from '../check.js';
import type { OwnedVideo } from '../types.js';
import { vendor } from './catalog.js';

const PLAIN_VIDEO_TYPES = [
  'video',
  'product-in-hand',
  'b-roll',
  'gestures',
  'scenes',
  'prompt_studio_video',
  'template_ads',
  'platform_background_removal',
] as const;

export function upscaleVideoTypes(v: VendorMap): string[] {
  const n = (l: Parameters<typeof vendor>[1]) => vendor(v, l);
  return [
    ...PLAIN_VIDEO_TYPES,
    `${n('A')}-animate`,
    `${n('B')}2`,
    `${n('C')}_2_video`,
    `${n('C')}_25_video`,
    `${n('D')}_video`,
    `${n('E')}_video`,
    `${n('F')}3_extend`,
  ];
}

export const MODEL_FAMILIES = ['precision', 'generative', 'creative'] as const;
export const TARGET_RESOLUTIONS = ['720p', '1080p', '1440p', '2160p'] as const;
const TARGET_SHORT_SIDE: Record<(typeof TARGET_RESOLUTIONS)[number], number> = {
  '720p': 720,
  '1080p': 1080,
  '1440p': 1440,
  '2160p': 2160,
};

export const MAX_SOURCE_SECONDS = 300;
export const MAX_SOURCE_FPS = 60;
export const MAX_FACTOR = 4;
export const MAX_SHORT_SIDE = 2160;
export const MAX_LONG_SIDE = 3840;

/**
 * Sandbox price: credits per source second per unit of upscale factor, by family (the spec only says
 * "upscale by quote"). Generative and creative models re-synthesise detail, so they cost more.
 */
export const FAMILY_CREDITS_PER_SECOND: Record<(typeof MODEL_FAMILIES)[number], number> = {
  precision: 1,
  generative: 3,
  creative: 5,
};

export interface UpscaleBody {
  videoId: string;
  projectId: string;
  videoType: string;
  modelFamily: (typeof MODEL_FAMILIES)[number];
  model: string;
  targetResolution: (typeof TARGET_RESOLUTIONS)[number];
}

const BODY_FIELDS = ['video_id', 'project_id', 'video_type', 'model_family', 'model', 'target_resolution'] as const;

/** Strict JSON: user_id and webhook_url get their own message; any other unknown field is rejected too. */
export function validateUpscaleBody(body: Body, v: VendorMap): UpscaleBody {
  if ('user_id' in body) bad('user_id: must not be sent; the API key identifies the account');
  if ('webhook_url' in body) bad('webhook_url: upscale sends no webhooks; poll GET /upscale/status');
  rejectUnknown(body, BODY_FIELDS, 'upscale');
  const str = (f: string) => requireString(body, f, { min: 1, max: 256 });
  const videoId = str('video_id');
  const projectId = str('project_id');
  const videoType = str('video_type');
  if (!upscaleVideoTypes(v).includes(videoType)) bad(`video_type: must be one of ${upscaleVideoTypes(v).join(', ')}`);
  const modelFamily = requireEnum(body, 'model_family', MODEL_FAMILIES);
  // The seven model names are omitted by the spec, so any 1-256 character name is accepted.
  const model = str('model');
  const targetResolution = requireEnum(body, 'target_resolution', TARGET_RESOLUTIONS);
  return { videoId, projectId, videoType, modelFamily, model, targetResolution };
}

export interface UpscalePlan {
  factor: number;
  width: number;
  height: number;
  frames: number;
  credits: number;
}

/** Source limits and geometry; throws 400 naming the rule. */
export function planUpscale(video: OwnedVideo, req: Pick<UpscaleBody, 'modelFamily' | 'targetResolution'>) {
  if (video.durationS > MAX_SOURCE_SECONDS)
    bad(`video_id: source is ${video.durationS} s long; at most ${MAX_SOURCE_SECONDS} s is supported`);
  if (video.fps > MAX_SOURCE_FPS)
    bad(`video_id: source is ${video.fps} fps; at most ${MAX_SOURCE_FPS} fps is supported`);
  const short = Math.min(video.width, video.height);
  const long = Math.max(video.width, video.height);
  const targetShort = TARGET_SHORT_SIDE[req.targetResolution];
  const factor = targetShort / short;
  const targetLong = Math.round(long * factor);
  if (factor < 1 || factor > MAX_FACTOR || targetShort > MAX_SHORT_SIDE || targetLong > MAX_LONG_SIDE)
    bad(
      `target_resolution: unsupported geometry (${video.width}x${video.height} to ${req.targetResolution} is factor ` +
        `${factor.toFixed(2)}; the factor must be 1-${MAX_FACTOR} and the output at most ` +
        `${MAX_SHORT_SIDE} short side and ${MAX_LONG_SIDE} long side)`,
    );
  const portrait = video.height >= video.width;
  const credits = Math.max(1, Math.ceil(video.durationS * factor * FAMILY_CREDITS_PER_SECOND[req.modelFamily]));
  return {
    factor: Math.round(factor * 100) / 100,
    width: portrait ? targetShort : targetLong,
    height: portrait ? targetLong : targetShort,
    frames: Math.round(video.durationS * video.fps),
    credits,
  } satisfies UpscalePlan;
}
