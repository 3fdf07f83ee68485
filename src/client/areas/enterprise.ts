/** Enterprise models: the catalog, one generic generate route, status by request_id. Flat bodies, no envelope. */

import { wellFormed } from '../../unicode.js';
import type { PlatformHttp } from '../http.js';
import { CatalogSchema, EnterpriseStatusSchema, EnterpriseSubmitSchema } from '../schemas.js';
import type { PlatformClient } from '../types.js';

/** @throws see PlatformHttp.request; generate is a submit POST (never retried). */
export function enterpriseArea(http: PlatformHttp): PlatformClient['enterprise'] {
  return {
    models: async (o) => {
      const res = await http.request({
        method: 'GET',
        path: '/enterprise/models',
        schema: CatalogSchema,
        envelope: false,
        submit: false,
        signal: o?.signal,
      });
      return { data: res.data.models, requestId: res.requestId };
    },
    generate: (body, o) =>
      http.request({
        method: 'POST',
        path: '/enterprise/generate',
        json: body,
        schema: EnterpriseSubmitSchema,
        envelope: false,
        submit: true,
        signal: o?.signal,
      }),
    status: (requestId, media, o) =>
      http.request({
        method: 'GET',
        // The id comes from the platform, but it goes into a path segment, so it is encoded anyway.
        // A lone surrogate cannot cross a UTF-8 wire (encodeURIComponent would throw): it travels as U+FFFD,
        // as query values do through URLSearchParams.
        path: `/enterprise/status/${encodeURIComponent(wellFormed(requestId))}`,
        route: '/enterprise/status/{request_id}',
        query: { media },
        schema: EnterpriseStatusSchema,
        envelope: false,
        submit: false,
        signal: o?.signal,
      }),
  };
}
