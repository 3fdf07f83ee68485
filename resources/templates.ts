import { defineResource, defineResourceTemplate, variable } from '../src/define-resource.js';
import { UserInputError } from '../src/errors.js';
import { compactTemplate } from '../tools/_shared/library.js';

const LIST_DESCRIPTION =
  'Content-library templates (id, title, credit, categories, fields). Use an id and its fields in create_template_video.';

export default [
  // SDK 1.32: a `{?query}` template does not match the bare URI, so the bare URI is a resource of its own.
  defineResource({
    name: 'templates',
    uri: 'genplat://templates',
    title: 'Templates',
    description: LIST_DESCRIPTION,
    read: async ({ catalog }) => ({ templates: (await catalog.templates()).map(compactTemplate) }),
  }),
  defineResourceTemplate({
    name: 'templates-by-category',
    uriTemplate: 'genplat://templates{?category}',
    title: 'Templates by category',
    description: LIST_DESCRIPTION,
    complete: { category: async ({ catalog }) => (await catalog.categories()).map((c) => c.value) },
    read: async ({ catalog }, _uri, vars) => {
      const category = variable(vars, 'category');
      return { templates: (await catalog.templates(category)).map(compactTemplate) };
    },
  }),
  defineResourceTemplate({
    name: 'template',
    uriTemplate: 'genplat://templates/{id}',
    title: 'Template',
    description: 'One content-library template with its fields (type, label, max). For create_template_video.',
    complete: { id: async ({ catalog }) => (await catalog.templates()).map((t) => t.id) },
    read: async ({ catalog }, _uri, vars) => {
      const t = await catalog.template(variable(vars, 'id') ?? '');
      if (!t) throw new UserInputError('id', 'template not found; see genplat://templates or list_templates');
      return compactTemplate(t);
    },
  }),
];
