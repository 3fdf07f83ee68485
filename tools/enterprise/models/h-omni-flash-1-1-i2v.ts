/**
 * <vendorH>-omni-flash-1-1-i2v: image-to-video, webhook supported. The only model whose media may be base64
 * data URIs. seed, negative_prompt, generate_audio and client prices are rejected by the platform.
 */
import { z } from 'zod';
import { publicMediaUrl } from '../../_shared/urls.js';
import { defineModel, forbidden, int, type ModelSpec, oneOf, prompt } from './spec.js';

const NOT_ACCEPTED = 'not accepted by this model';

// Built on first use (defineModel).
const params = () =>
  z.looseObject({
    prompt: prompt({ min: 1, max: 20_000 }),
    image_url: publicMediaUrl('first frame', { allowDataUri: true }),
    end_image_url: publicMediaUrl('last frame', { allowDataUri: true }).optional(),
    resolution: oneOf(['360p', '720p', '1080p', '4k']).describe('default 720p').optional(),
    duration: int(3, 10).describe('seconds, default 8').optional(),
    aspect_ratio: oneOf(['16:9', '9:16']).describe('default 16:9').optional(),
    seed: forbidden(NOT_ACCEPTED),
    negative_prompt: forbidden(NOT_ACCEPTED),
    generate_audio: forbidden(NOT_ACCEPTED),
  });

export const omniFlashI2v: ModelSpec = defineModel({
  shape: '<vendorH>-omni-flash-1-1-i2v',
  letter: 'H',
  suffix: '-omni-flash-1-1-i2v',
  matchBy: 'suffix',
  media: 'video',
  strict: false,
  webhook: true,
  webhookStated: true,
  // Spec: "media accepts public HTTP(S) URLs or base64 data URIs"; its media fields are these two.
  dataUriFields: ['image_url', 'end_image_url'],
  params,
  notes:
    'Image to video (3-10 s). Media may be public URLs or base64 data URIs (sources ≤200 MiB). No seed, negative_prompt, generate_audio or prices.',
  // Spec: "quoted by duration and resolution" without numbers; defaults 8 s and 720p are the spec's.
  pricing: { seconds: 8, defaults: { resolution: '720p' } },
});
