/** Avatars: the template + custom avatar list, and custom-avatar creation (multipart). */
import type { FormData } from 'undici';
import { loadUndici, type PlatformHttp } from '../http.js';
import { AvatarSchema, CustomAvatarResultSchema } from '../schemas.js';
import type { MediaPart, PlatformClient } from '../types.js';

/** A URL goes as a plain string field; bytes go as a file part (spec: "file or string"). */
function appendPart(form: FormData, name: string, part: MediaPart): void {
  if ('url' in part) {
    form.append(name, part.url);
    return;
  }
  // Copy into a fresh ArrayBuffer-backed view: Blob does not accept views over shared memory.
  form.append(name, new Blob([new Uint8Array(part.bytes)], { type: part.contentType }), part.filename);
}

/** @throws see PlatformHttp.request; createCustom is a submit POST (never retried). */
export function avatarsArea(http: PlatformHttp): PlatformClient['avatars'] {
  return {
    list: (q, o) =>
      http.request({
        method: 'GET',
        path: '/video/avatars',
        query: { gender: q?.gender },
        schema: AvatarSchema.array(),
        envelope: true,
        submit: false,
        signal: o?.signal,
      }),
    createCustom: async (parts, o) => {
      // undici's FormData (its fetch only recognises its own class); undici loads on the first request.
      const { FormData } = await loadUndici();
      const form = new FormData();
      appendPart(form, 'image', parts.image);
      if (parts.voice) appendPart(form, 'voice', parts.voice);
      return http.request({
        method: 'POST',
        path: '/custom-avatar/generate',
        form,
        schema: CustomAvatarResultSchema,
        envelope: true,
        submit: true,
        signal: o?.signal,
      });
    },
  };
}
