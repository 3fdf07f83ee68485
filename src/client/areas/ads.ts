/** Shoppable ads (the platform spells the path `shopable`): packs, image and video jobs. */
import type { PlatformHttp } from '../http.js';
import { JobIdSchema, PacksSchema, VideoStatusSchema } from '../schemas.js';
import type { CallOptions, PlatformClient } from '../types.js';

/** @throws see PlatformHttp.request; createImage/createVideo are submit POSTs (never retried). */
export function adsArea(http: PlatformHttp): PlatformClient['ads'] {
  const status = (kind: 'images' | 'videos', id: string, o?: CallOptions) =>
    http.request({
      method: 'GET',
      path: `/shopable/${kind}/status`,
      query: { id },
      schema: VideoStatusSchema,
      envelope: true,
      submit: false,
      signal: o?.signal,
    });
  const create = (kind: 'images' | 'videos', body: Record<string, unknown>, o?: CallOptions) =>
    http.request({
      method: 'POST',
      path: `/shopable/${kind}`,
      json: body,
      schema: JobIdSchema,
      envelope: true,
      submit: true,
      signal: o?.signal,
    });
  return {
    packs: (o) =>
      http.request({
        method: 'GET',
        path: '/shopable/packs',
        schema: PacksSchema,
        envelope: true,
        submit: false,
        signal: o?.signal,
      }),
    createImage: (body, o) => create('images', body, o),
    createVideo: (body, o) => create('videos', body, o),
    imageStatus: (id, o) => status('images', id, o),
    videoStatus: (id, o) => status('videos', id, o),
  };
}
