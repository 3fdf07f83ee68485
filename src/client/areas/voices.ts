/** Voices: stock and the account's custom voices. */
import type { PlatformHttp } from '../http.js';
import { VoiceSchema } from '../schemas.js';
import type { PlatformClient } from '../types.js';

/** @throws see PlatformHttp.request */
export function voicesArea(http: PlatformHttp): PlatformClient['voices'] {
  return {
    list: (q, o) =>
      http.request({
        method: 'GET',
        path: '/video/voices',
        query: { language: q?.language, gender: q?.gender },
        schema: VoiceSchema.array(),
        envelope: true,
        submit: false,
        signal: o?.signal,
      }),
  };
}
