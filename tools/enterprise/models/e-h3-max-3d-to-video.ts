/** <vendorE>-h3-max-3d-to-video: video from a source video. Allowed values are not published. */
import { z } from 'zod';
import { publicMediaUrl } from '../../_shared/urls.js';
import { defineModel, int, type ModelSpec, text } from './spec.js';

// Built on first use (defineModel).
const params = () =>
  z.looseObject({
    video_url: publicMediaUrl('source video'),
    prompt: text().optional(),
    reference_image_urls: z.array(publicMediaUrl('reference image')).optional(),
    max_generated_reference_images: int(0).optional(),
    resolution: text().optional(),
  });

export const eH3MaxVideo: ModelSpec = defineModel({
  shape: '<vendorE>-h3-max-3d-to-video',
  letter: 'E',
  suffix: '-h3-max-3d-to-video',
  matchBy: 'suffix',
  media: 'video',
  strict: false,
  webhook: true,
  webhookStated: false,
  params,
  notes: 'Video from a source video_url, optionally guided by reference images.',
  // Spec: "depends on duration, resolution and source media"; the source duration is unknown before the job,
  // so only a catalog text that does not depend on it bounds the price.
  pricing: {},
});
