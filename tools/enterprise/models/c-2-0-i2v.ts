/** <vendorC>-2-0-i2v: image-to-video, webhook supported. Allowed values are not published. */
import { z } from 'zod';
import { publicMediaUrl } from '../../_shared/urls.js';
import { defineModel, type ModelSpec, prompt, text } from './spec.js';

// Built on first use (defineModel).
const params = () =>
  z.looseObject({
    prompt: prompt({ min: 1 }),
    image_url: publicMediaUrl('first frame'),
    duration: z.union([z.string(), z.number()]).describe('seconds').optional(),
    resolution: text().optional(),
    aspect_ratio: text().optional(),
    generate_audio: z.boolean().optional(),
    end_image_url: publicMediaUrl('extra reference image (last frame not guaranteed)').optional(),
  });

export const c20I2v: ModelSpec = defineModel({
  shape: '<vendorC>-2-0-i2v',
  letter: 'C',
  suffix: '-2-0-i2v',
  matchBy: 'suffix',
  media: 'video',
  strict: false,
  webhook: true,
  webhookStated: true,
  params,
  notes: 'Image to video. end_image_url is an extra reference; last-frame control is not guaranteed.',
  // Spec: "depends on duration and resolution"; no default duration is shown, so an omitted one leaves a
  // per-second catalog price unbounded.
  pricing: {},
});
