import { defineResource, defineResourceTemplate, variable } from '../src/define-resource.js';
import { distinct } from './avatars.js';

const DESCRIPTION =
  "Stock and custom voices (full records, previews included). Pass a voice's id, not its voiceId, as voice_id.";

export default [
  defineResource({
    name: 'voices',
    uri: 'genplat://voices',
    title: 'Voices',
    description: DESCRIPTION,
    read: async ({ catalog }) => ({ voices: await catalog.voices() }),
  }),
  defineResourceTemplate({
    name: 'voices-filtered',
    uriTemplate: 'genplat://voices{?language,gender}',
    title: 'Voices by language and gender',
    description: DESCRIPTION,
    complete: {
      language: async ({ catalog }) => distinct((await catalog.voices()).map((v) => v.language)),
      // Genders offered for the language already chosen, when there is one.
      gender: async ({ catalog }, ctx) => {
        const lang = ctx.language?.toLowerCase();
        const voices = (await catalog.voices()).filter((v) => !lang || v.language?.toLowerCase() === lang);
        return distinct(voices.map((v) => v.gender));
      },
    },
    read: async ({ catalog }, _uri, vars) => {
      const language = variable(vars, 'language');
      const gender = variable(vars, 'gender');
      return { voices: await catalog.voices({ ...(language ? { language } : {}), ...(gender ? { gender } : {}) }) };
    },
  }),
];
