/** Gestures: animate a still image. */
import type { PlatformHttp } from '../http.js';
import { GestureStatusSchema, GestureSubmitSchema } from '../schemas.js';
import type { PlatformClient } from '../types.js';

/** @throws see PlatformHttp.request; generate is a submit POST (never retried). */
export function gesturesArea(http: PlatformHttp): PlatformClient['gestures'] {
  return {
    generate: (body, o) =>
      http.request({
        method: 'POST',
        path: '/gestures/generate',
        json: body,
        schema: GestureSubmitSchema,
        envelope: true,
        submit: true,
        signal: o?.signal,
      }),
    status: (id, o) =>
      http.request({
        method: 'GET',
        path: '/gestures/status',
        query: { id },
        schema: GestureStatusSchema,
        envelope: true,
        submit: false,
        signal: o?.signal,
      }),
  };
}
