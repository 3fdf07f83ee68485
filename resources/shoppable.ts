import { defineResource } from '../src/define-resource.js';
import { packView, readPacks } from '../tools/_shared/packs.js';

export default [
  defineResource({
    name: 'shoppable-packs',
    uri: 'genplat://shoppable/packs',
    title: 'Shoppable ad packs',
    description:
      'Shoppable ad categories with allowed formats, and durations, aspect ratios, credits and defaults where given.',
    read: async ({ catalog }) => ({ packs: readPacks(await catalog.packs()).map(packView) }),
  }),
];
