/** The dedicated video family, reached at `/<vendorC>/…`. */
import type { VendorMap } from '../../config.js';
import { resolveVendors } from '../../vendors.js';
import type { PlatformHttp } from '../http.js';
import { FamilySubmitSchema, VideoStatusSchema } from '../schemas.js';
import type { PlatformClient } from '../types.js';

/**
 * @throws ConfigurationError (naming GENPLAT_VENDORS) when <vendorC> is unset; nothing is sent.
 * @throws see PlatformHttp.request; generate is a submit POST (never retried).
 */
export function familyArea(http: PlatformHttp, vendors: VendorMap): PlatformClient['family'] {
  return {
    generate: async (body, o) =>
      http.request({
        method: 'POST',
        path: resolveVendors(vendors, '/<vendorC>/generate', 'create_family_video'),
        json: body,
        schema: FamilySubmitSchema,
        envelope: true,
        submit: true,
        signal: o?.signal,
      }),
    status: async (id, o) =>
      http.request({
        method: 'GET',
        path: resolveVendors(vendors, '/<vendorC>/status', 'get_job (dedicated family)'),
        query: { id },
        schema: VideoStatusSchema,
        envelope: true,
        submit: false,
        signal: o?.signal,
      }),
  };
}
