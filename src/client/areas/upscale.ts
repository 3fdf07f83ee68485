/** Video upscale: quote (slow probe), generate (one billed attempt), status per billing_id. No webhooks. */
import type { PlatformHttp } from '../http.js';
import { UpscaleAttemptSchema, UpscaleQuoteSchema } from '../schemas.js';
import type { PlatformClient } from '../types.js';

/** Spec, POST /upscale/quote: probing can take up to 370 s, "use a client timeout of at least 420 seconds". */
export const UPSCALE_QUOTE_TIMEOUT_MS = 420_000;

/**
 * @throws see PlatformHttp.request. generate is a submit POST; quote is a POST that starts no job
 *   (submit: false) but, as every POST, is never retried.
 */
export function upscaleArea(http: PlatformHttp): PlatformClient['upscale'] {
  return {
    quote: (body, o) =>
      http.request({
        method: 'POST',
        path: '/upscale/quote',
        json: body,
        schema: UpscaleQuoteSchema,
        envelope: true,
        submit: false,
        timeoutMs: UPSCALE_QUOTE_TIMEOUT_MS,
        signal: o?.signal,
      }),
    generate: (body, o) =>
      http.request({
        method: 'POST',
        path: '/upscale/generate',
        json: body,
        schema: UpscaleAttemptSchema,
        envelope: true,
        submit: true,
        signal: o?.signal,
      }),
    status: (q, o) =>
      http.request({
        method: 'GET',
        path: '/upscale/status',
        query: { ...q },
        schema: UpscaleAttemptSchema,
        envelope: true,
        submit: false,
        signal: o?.signal,
      }),
  };
}
