/**
 * The `size` rule of <vendorG>-image-2.5-flare-edit, exactly as the spec's table states it: a preset, `auto`,
 * or a custom `WxH` whose sides are multiples of 16 and at most 3840, whose total pixels are 655360-8294400
 * (both inclusive) and whose aspect ratio is at most 3:1.
 */
import { bad } from '../check.js';

export const FLARE_SIZE_PRESETS = [
  'auto',
  '1024x1024',
  '1536x1024',
  '1024x1536',
  '2048x2048',
  '2048x1152',
  '3840x2160',
  '2160x3840',
] as const;

export const MIN_PIXELS = 655_360;
export const MAX_PIXELS = 8_294_400;
export const MAX_SIDE = 3840;
export const MAX_ASPECT = 3;

/** Returns the pixel dimensions (auto prices as 1024x1024) or throws `size: <rule>`. */
export function checkFlareSize(size: string): { width: number; height: number } {
  if (size === 'auto') return { width: 1024, height: 1024 };
  const m = /^(\d{1,5})x(\d{1,5})$/.exec(size);
  if (!m) bad(`size: must be auto, one of ${FLARE_SIZE_PRESETS.slice(1).join(', ')}, or a custom WxH`);
  const width = Number(m[1]);
  const height = Number(m[2]);
  if ((FLARE_SIZE_PRESETS as readonly string[]).includes(size)) return { width, height };
  if (width === 0 || height === 0) bad('size: width and height must be positive');
  if (width % 16 !== 0 || height % 16 !== 0) bad('size: custom width and height must be multiples of 16');
  if (width > MAX_SIDE || height > MAX_SIDE) bad(`size: custom sides must be at most ${MAX_SIDE}`);
  const pixels = width * height;
  if (pixels < MIN_PIXELS || pixels > MAX_PIXELS)
    bad(`size: custom total pixels must be ${MIN_PIXELS}-${MAX_PIXELS} (got ${pixels})`);
  if (Math.max(width, height) > MAX_ASPECT * Math.min(width, height))
    bad('size: custom aspect ratio must be at most 3:1');
  return { width, height };
}
