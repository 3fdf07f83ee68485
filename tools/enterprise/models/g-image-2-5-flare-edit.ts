/** <vendorG>-image-2.5-flare-edit: image edit, polling-only, strict; every rule of the spec's table. */
import { z } from 'zod';
import { publicMediaUrl } from '../../_shared/urls.js';
import { defineModel, int, type ModelSpec, oneOf, prompt } from './spec.js';

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

const MAX_SIDE = 3840;
const MIN_PIXELS = 655_360;
const MAX_PIXELS = 8_294_400;
const MAX_ASPECT = 3;

/** The rule a `size` value breaks, or undefined when it is a preset or a valid custom WxH. */
export function flareSizeProblem(size: string): string | undefined {
  if ((FLARE_SIZE_PRESETS as readonly string[]).includes(size)) return undefined;
  const m = /^(\d{1,5})x(\d{1,5})$/.exec(size);
  if (!m) return `must be ${FLARE_SIZE_PRESETS.join(', ')} or a custom WxH`;
  const w = Number(m[1]);
  const h = Number(m[2]);
  if (w % 16 !== 0 || h % 16 !== 0) return 'custom width and height must be multiples of 16';
  if (w > MAX_SIDE || h > MAX_SIDE) return `custom sides must be at most ${MAX_SIDE}`;
  if (w * h < MIN_PIXELS || w * h > MAX_PIXELS)
    return `custom total pixels must be ${MIN_PIXELS}-${MAX_PIXELS} (got ${w * h})`;
  if (Math.max(w, h) > MAX_ASPECT * Math.min(w, h)) return 'custom aspect ratio must be at most 3:1';
  return undefined;
}

// Built on first use (defineModel).
const params = () =>
  z
    .strictObject({
      prompt: prompt({ min: 1, max: 5000 }),
      image_urls: z
        .array(publicMediaUrl('image to edit'))
        .min(1, 'must have at least 1 item')
        .max(2, 'must have at most 2 items'),
      size: z
        .string()
        .superRefine((v, ctx) => {
          const problem = flareSizeProblem(v);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .describe(
          'default auto; a preset or custom WxH: multiples of 16, ≤3840 per side, 655360-8294400 pixels, aspect ≤3:1',
        )
        .optional(),
      quality: oneOf(['low', 'medium', 'high', 'auto', 'xhigh', 'max']).describe('default auto').optional(),
      mask_url: publicMediaUrl('mask image').optional(),
      background: oneOf(['auto', 'opaque', 'transparent']).optional(),
      output_format: oneOf(['png', 'jpeg', 'webp']).describe('default png').optional(),
      output_compression: int(0, 100).describe('only with jpeg or webp').optional(),
    })
    .superRefine((p, ctx) => {
      const format = p.output_format ?? 'png';
      if (p.background === 'transparent' && format === 'jpeg')
        ctx.addIssue({
          code: 'custom',
          path: ['background'],
          message: 'transparent requires output_format png or webp',
        });
      if (p.output_compression !== undefined && format === 'png')
        ctx.addIssue({
          code: 'custom',
          path: ['output_compression'],
          message: 'accepted only with output_format jpeg or webp (default is png)',
        });
    });

export const flareEdit: ModelSpec = defineModel({
  shape: '<vendorG>-image-2.5-flare-edit',
  letter: 'G',
  suffix: '-image-2.5-flare-edit',
  matchBy: 'suffix',
  media: 'image',
  strict: true,
  webhook: false,
  webhookStated: true,
  params,
  notes:
    'Edits 1-2 images into one. Transparent background needs png/webp; output_compression needs jpeg/webp. Polling-only.',
  // Spec: "cost depends on size, quality and output count" with no numbers; strict, with no count field, so
  // one output per request. Defaults auto/auto are the spec's.
  pricing: { defaults: { size: 'auto', quality: 'auto' } },
});
