/**
 * The dedicated <vendorC> family (POST /<vendorC>/generate). The spec shows only the field names seen for
 * <vendorC>-2.5 and says "the full parameter sets of these models: not shown", so the allowed values and
 * prices below are sandbox assumptions, chosen to look like the family's public offering.
 */
import type { VendorMap } from '../../config.js';
import {
  type Body,
  bad,
  optionalBoolean,
  optionalEnum,
  rejectBillingControls,
  requireEnum,
  requireString,
} from '../check.js';
import { vendor } from './catalog.js';

export const FAMILY_DURATIONS = [5, 10] as const;
export const FAMILY_RESOLUTIONS = ['480p', '720p', '1080p'] as const;
export const FAMILY_ASPECT_RATIOS = ['16:9', '9:16', '1:1'] as const;

/** Sandbox credits per second at 720p, per model. */
const PER_SECOND: Record<'2.5' | '2.0' | '2.0-fast', number> = { '2.5': 10, '2.0': 8, '2.0-fast': 4 };
/** Sandbox resolution multipliers on the 720p price. */
const RESOLUTION_FACTOR: Record<(typeof FAMILY_RESOLUTIONS)[number], number> = {
  '480p': 0.5,
  '720p': 1,
  '1080p': 2,
};
const SHORT_SIDE: Record<(typeof FAMILY_RESOLUTIONS)[number], number> = { '480p': 480, '720p': 720, '1080p': 1080 };

export function familyModels(v: VendorMap): string[] {
  const C = vendor(v, 'C');
  return [`${C}-2.5`, `${C}-2.0`, `${C}-2.0-fast`];
}

export interface FamilyRequest {
  model: string;
  durationS: number;
  resolution: (typeof FAMILY_RESOLUTIONS)[number];
  aspectRatio: (typeof FAMILY_ASPECT_RATIOS)[number];
  credits: number;
  /** The upscale video_type its finished video gets. */
  videoType: string;
  width: number;
  height: number;
}

/** Validates the top-level body (no params envelope) and prices it. */
export function validateFamily(body: Body, v: VendorMap): FamilyRequest {
  if ('params' in body) bad('params: this endpoint takes model inputs at the top level, without a params envelope');
  rejectBillingControls(body);
  const models = familyModels(v);
  const model = requireEnum(body, 'model', models);
  requireString(body, 'prompt', { min: 1, max: 2000 });
  const rawDuration = body.duration;
  let durationS: number = FAMILY_DURATIONS[0];
  if (rawDuration !== undefined && rawDuration !== null) {
    if (typeof rawDuration !== 'number' || !Number.isInteger(rawDuration)) bad('duration: must be an integer');
    if (!(FAMILY_DURATIONS as readonly number[]).includes(rawDuration))
      bad(`duration: must be one of ${FAMILY_DURATIONS.join(', ')}`);
    durationS = rawDuration;
  }
  const aspectRatio = optionalEnum(body, 'aspect_ratio', FAMILY_ASPECT_RATIOS) ?? '9:16';
  const resolution = optionalEnum(body, 'resolution', FAMILY_RESOLUTIONS) ?? '720p';
  optionalBoolean(body, 'generate_audio');
  const version = model.slice(vendor(v, 'C').length + 1) as keyof typeof PER_SECOND;
  const credits = Math.ceil(PER_SECOND[version] * durationS * RESOLUTION_FACTOR[resolution]);
  const C = vendor(v, 'C');
  const videoType = version === '2.5' ? `${C}_25_video` : `${C}_2_video`;
  const short = SHORT_SIDE[resolution];
  const long = aspectRatio === '1:1' ? short : Math.round((short * 16) / 9);
  const [width, height] = aspectRatio === '16:9' ? [long, short] : [short, long];
  return { model, durationS, resolution, aspectRatio, credits, videoType, width, height };
}
