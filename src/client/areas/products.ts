/** Product-in-hand: three vendor-named generate routes, one shared status route. */
import type { VendorMap } from '../../config.js';
import { resolveVendors } from '../../vendors.js';
import type { PlatformHttp } from '../http.js';
import { JobIdSchema, VideoStatusSchema } from '../schemas.js';
import type { PlatformClient, ProductEngine } from '../types.js';

/** Route templates from the spec; the vendor letters are resolved per call, so an unset one fails only its engine. */
export const PRODUCT_ROUTES: Record<ProductEngine, string> = {
  v2: '/product-in-hand/<vendorL>-v2/generate',
  human: '/product-in-hand/<vendorM>-human/generate',
  scenes: '/product-in-hand/<vendorF>/generate',
};

/**
 * @throws ConfigurationError (naming GENPLAT_VENDORS) when the engine's vendor letter is unset; nothing is sent.
 * @throws see PlatformHttp.request; generate is a submit POST (never retried).
 */
export function productsArea(http: PlatformHttp, vendors: VendorMap): PlatformClient['products'] {
  return {
    generate: async (engine, body, o) =>
      http.request({
        method: 'POST',
        path: resolveVendors(vendors, PRODUCT_ROUTES[engine], `create_product_video (engine ${engine})`),
        json: body,
        schema: JobIdSchema,
        envelope: true,
        submit: true,
        signal: o?.signal,
      }),
    status: (id, o) =>
      http.request({
        method: 'GET',
        path: '/product-in-hand/status',
        query: { id },
        schema: VideoStatusSchema,
        envelope: true,
        submit: false,
        signal: o?.signal,
      }),
  };
}
