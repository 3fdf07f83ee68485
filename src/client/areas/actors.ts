/** Talking-actor videos: POST /video/generate and GET /video/status. */
import type { PlatformHttp } from '../http.js';
import { JobIdSchema, VideoStatusSchema } from '../schemas.js';
import type { PlatformClient } from '../types.js';

/** @throws see PlatformHttp.request; generate is a submit POST (never retried). */
export function actorsArea(http: PlatformHttp): PlatformClient['actors'] {
  return {
    generate: (body, o) =>
      http.request({
        method: 'POST',
        path: '/video/generate',
        json: body,
        schema: JobIdSchema,
        envelope: true,
        submit: true,
        signal: o?.signal,
      }),
    status: (id, o) =>
      http.request({
        method: 'GET',
        path: '/video/status',
        query: { id },
        schema: VideoStatusSchema,
        envelope: true,
        submit: false,
        signal: o?.signal,
      }),
  };
}
