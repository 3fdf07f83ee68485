import type { Catalog } from '../src/catalog.js';
import { defineResource, defineResourceTemplate, variable } from '../src/define-resource.js';

const DESCRIPTION =
  'Stock and custom avatars (full records, thumbnails included). Use an id as avatar_id in create_talking_video.';

/** Distinct non-empty values of one field, sorted: completion candidates from the live list. */
export function distinct(values: (string | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v.trim() !== ''))].sort();
}

export const avatarGenders = async (catalog: Catalog) => distinct((await catalog.avatars()).map((a) => a.gender));

export default [
  // SDK 1.32: a `{?query}` template does not match the bare URI, so the bare URI is a resource of its own.
  defineResource({
    name: 'avatars',
    uri: 'genplat://avatars',
    title: 'Avatars',
    description: DESCRIPTION,
    read: async ({ catalog }) => ({ avatars: await catalog.avatars() }),
  }),
  defineResourceTemplate({
    name: 'avatars-filtered',
    uriTemplate: 'genplat://avatars{?gender}',
    title: 'Avatars by gender',
    description: DESCRIPTION,
    complete: { gender: ({ catalog }) => avatarGenders(catalog) },
    read: async ({ catalog }, _uri, vars) => {
      const gender = variable(vars, 'gender');
      return { avatars: await catalog.avatars(gender ? { gender } : undefined) };
    },
  }),
];
