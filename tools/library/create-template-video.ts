import { z } from 'zod';
import { defineTool, type ToolContext } from '../../src/define-tool.js';
import { checkPublicMediaUrl } from '../../src/guards/url.js';
import { templateEstimate } from '../../src/paid/pricing/estimate.js';
import { CATALOG_ID_FIELDS, requireListed } from '../_shared/catalog-ids.js';
import { checkTemplateFields } from '../_shared/library.js';
import { projectId } from '../_shared/params.js';
import { webhookUrlField } from '../_shared/urls.js';

/** The template from the live list; the quote needs it (its credit value), so a failed read fails the call. */
function templateOf(id: string, ctx: ToolContext) {
  return requireListed(ctx, {
    field: 'template_id',
    what: 'template',
    id,
    listTool: CATALOG_ID_FIELDS.template_id,
    list: 'templates',
    read: (c) => c.templates(),
    matches: (t) => t.id === id,
    price: true,
  });
}

export default defineTool({
  name: 'create_template_video',
  title: 'Template video',
  toolset: 'library',
  description:
    'Content-library video from a template (ids, fields: list_templates). Variants: create_campaign. Billable.',
  input: {
    // No UUID pattern in the schema (it costs tokens in every tools/list): validate checks the id against the
    // live template list, which also rejects anything that is not a UUID. Bounded so that an empty or runaway id
    // is refused before that read.
    template_id: z.string().min(1).max(64).describe('UUID from list_templates'),
    // Every field a template lists is required (spec: "every key of the template's require_fields must be sent"),
    // so an empty value is refused here, before the template list is read.
    fields: z.record(z.string(), z.string().min(1)).describe('values by field name (list_templates)'),
    project_id: projectId().optional(),
    webhook_url: webhookUrlField(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async validate(input, ctx) {
    const t = await templateOf(input.template_id, ctx);
    await checkTemplateFields(t, input.fields, checkPublicMediaUrl);
  },
  billable: {
    // Spec: "when webhook_url is set, the service POSTs application/json once at a terminal state".
    acceptsCallback: () => true,
    kind: () => 'template_video' as const,
    async estimate(input, ctx) {
      const t = await templateOf(input.template_id, ctx);
      // The one price grammar reads the credit value (issue 27); image fields count for a per-image price.
      const types = Object.fromEntries(Object.entries(t.require_fields).map(([k, f]) => [k, f.type]));
      const e = templateEstimate(ctx.config, { id: t.id, credit: t.credit, types, fields: input.fields });
      return { ...e, basis: `template "${t.title}": ${e.basis}` };
    },
    summary: (input) =>
      `template video from template ${input.template_id} (fields: ${Object.keys(input.fields).join(', ') || 'none'})`,
  },
  request(input) {
    const { template_id, fields, project_id, webhook_url } = input;
    // Reserved keys go last so a field can never override them (unknown keys were already refused).
    const body = {
      ...fields,
      template_id,
      ...(project_id ? { project_id } : {}),
      ...(webhook_url ? { webhook_url } : {}),
    };
    return { route: '/content-library/generate', body };
  },
  async run(input, ctx, { body }) {
    const { project_id } = input;
    // No `signal`: once the paid POST is sent, only its answer tells us the job id; a cancel must not lose it.
    const { data, requestId } = await ctx.client.library.generate(body);
    // The spec shows only db_id; keep a project_id too if the platform sends one (it creates one when omitted).
    const sent = (data as { project_id?: unknown }).project_id;
    const project = typeof sent === 'string' && sent ? sent : project_id;
    return {
      ref: { kind: 'template_video' as const, id: data.db_id },
      requestId,
      remote: { id: data.db_id, ...(project ? { project_id: project } : {}) },
    };
  },
});
