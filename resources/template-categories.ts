import { defineResource } from '../src/define-resource.js';

export default [
  defineResource({
    name: 'template-categories',
    uri: 'genplat://template-categories',
    title: 'Template categories',
    description: 'Content-library categories (value, label; "all" included). Filter genplat://templates{?category}.',
    read: async ({ catalog }) => ({
      categories: (await catalog.categories()).map((c) => ({ value: c.value, label: c.label })),
    }),
  }),
];
