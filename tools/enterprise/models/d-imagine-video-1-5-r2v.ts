/** <vendorD>-imagine-video-1-5-r2v: reference-to-video, webhook supported. Bounds are not published. */
import { z } from 'zod';
import { publicMediaUrl } from '../../_shared/urls.js';
import { defineModel, int, type ModelSpec, text } from './spec.js';

// Built on first use (defineModel).
const params = () =>
  z.looseObject({
    prompt: z
      .string()
      .refine((s) => s.trim().length > 0, 'must not be blank')
      .describe('refer to references as <IMAGE_0>, <IMAGE_1>, …'),
    reference_image_urls: z
      .array(publicMediaUrl('reference image'))
      .min(1, 'must have at least 1 item')
      .describe('ordered; repeats allowed'),
    // Spec: "strings and fractions are rejected".
    duration: int(1).describe('seconds').optional(),
    resolution: text().optional(),
    aspect_ratio: text().optional(),
    enable_safety_checker: z.boolean().describe('disable only with provider authorization').optional(),
  });

export const imagineVideoR2v: ModelSpec = defineModel({
  shape: '<vendorD>-imagine-video-1-5-r2v',
  letter: 'D',
  suffix: '-imagine-video-1-5-r2v',
  matchBy: 'suffix',
  media: 'video',
  strict: false,
  webhook: true,
  webhookStated: true,
  params,
  notes: 'Video from ordered reference images, named <IMAGE_0>, <IMAGE_1>… in the prompt. duration is an integer.',
  // Spec: "quoted by duration, resolution and image count" without numbers or a default duration: an omitted
  // one leaves a per-second price unbounded; every reference image counts.
  pricing: {},
});
