/** Content library: templates, categories, template videos (tracked by db_id). */
import type { PlatformHttp } from '../http.js';
import { CategorySchema, LibraryStatusSchema, LibrarySubmitSchema, TemplateSchema } from '../schemas.js';
import type { PlatformClient } from '../types.js';

/** @throws see PlatformHttp.request; generate is a submit POST (never retried). */
export function libraryArea(http: PlatformHttp): PlatformClient['library'] {
  return {
    templates: (q, o) =>
      http.request({
        method: 'GET',
        path: '/content-library/templates',
        query: { category: q?.category },
        schema: TemplateSchema.array(),
        envelope: true,
        submit: false,
        signal: o?.signal,
      }),
    categories: (o) =>
      http.request({
        method: 'GET',
        path: '/content-library/categories',
        schema: CategorySchema.array(),
        envelope: true,
        submit: false,
        signal: o?.signal,
      }),
    generate: (body, o) =>
      http.request({
        method: 'POST',
        path: '/content-library/generate',
        json: body,
        schema: LibrarySubmitSchema,
        envelope: true,
        submit: true,
        signal: o?.signal,
      }),
    status: (dbId, o) =>
      http.request({
        method: 'GET',
        path: '/content-library/status',
        query: { id: dbId },
        schema: LibraryStatusSchema,
        envelope: true,
        submit: false,
        signal: o?.signal,
      }),
  };
}
