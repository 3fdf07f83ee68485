import { z } from 'zod';
import type { Config } from '../../src/config.js';
import { defineTool } from '../../src/define-tool.js';
import { familyEstimate } from '../../src/paid/pricing/estimate.js';
import { vendorName } from '../../src/vendors.js';
import { CATALOG_ID_FIELDS, unknownId } from '../_shared/catalog-ids.js';
import { familyIds } from './models/family.js';

/**
 * The spec shows only the field names seen for <vendorC>-2.5 ("full parameter sets: not shown"). Our
 * assumptions, each stated in the README: prompt 1-2000 characters (like the catalog models' prompts),
 * duration a whole number of seconds 1-15, aspect_ratio `W:H`, resolution `<N>p` or `4k`.
 */
const MAX_DURATION_S = 15;

/** @throws ConfigurationError naming GENPLAT_VENDORS when <vendorC> is unset. */
function familyModels(config: Config): string[] {
  return familyIds(vendorName(config.vendors, 'C', 'create_family_video'));
}

export default defineTool({
  name: 'create_family_video',
  title: 'Dedicated-family video',
  toolset: 'enterprise',
  description:
    'Dedicated-family video (ids from list_models). Variants: create_campaign. Billable; price unpublished: always asks.',
  input: {
    model: z.string().min(1).max(64).describe('family id from list_models, e.g. <name>-2.5'),
    prompt: z.string().min(1).max(2000).describe('what the video shows'),
    duration: z.number().int().min(1).max(MAX_DURATION_S).optional().describe('seconds'),
    aspect_ratio: z
      .string()
      .regex(/^\d{1,2}:\d{1,2}$/)
      .optional()
      .describe('e.g. 9:16'),
    resolution: z
      .string()
      .regex(/^(\d{3,4}p|4k)$/i)
      .optional()
      .describe('e.g. 720p'),
    generate_audio: z.boolean().optional().describe('add an audio track'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async validate(input, ctx) {
    const models = familyModels(ctx.config);
    // Not in the live catalog (the spec: GET /enterprise/models does not return them): list_models adds them.
    if (!models.includes(input.model)) {
      throw unknownId(
        'model',
        'family model',
        input.model,
        CATALOG_ID_FIELDS.model,
        ` (family ids: ${models.join(', ')}; catalog models go to run_model)`,
      );
    }
  },
  billable: {
    kind: () => 'family_video' as const,
    // estimated_credits comes back only after submission: no pre-send bound is published (explicit consent).
    estimate: async (input, ctx) => familyEstimate(ctx.config, input.model),
    summary: (i) =>
      `family video ${i.model}${i.duration ? `, ${i.duration} s` : ''}${i.resolution ? `, ${i.resolution}` : ''}`,
  },
  request(input, ctx) {
    // Top-level body, no params envelope (spec). webhook_url is not offered: the family does not forward it.
    const body: Record<string, unknown> = { model: input.model, prompt: input.prompt };
    for (const key of ['duration', 'aspect_ratio', 'resolution', 'generate_audio'] as const) {
      if (input[key] !== undefined) body[key] = input[key];
    }
    return { route: `/${vendorName(ctx.config.vendors, 'C', 'create_family_video')}/generate`, body };
  },
  async run(_input, ctx, { body }) {
    const { data, requestId } = await ctx.client.family.generate(body, { signal: ctx.signal });
    const details: Record<string, unknown> = {};
    if (data.estimated_credits !== undefined) details.estimated_credits = data.estimated_credits;
    if (data.credits_charged !== undefined) details.credits_charged = data.credits_charged;
    return {
      ref: { kind: 'family_video' as const, id: data.id },
      requestId,
      remote: { id: data.id, ...(data.project_id ? { project_id: data.project_id } : {}) },
      ...(data.credits_charged !== undefined ? { creditsCharged: data.credits_charged } : {}),
      ...(data.estimated_credits !== undefined ? { platformEstimate: data.estimated_credits } : {}),
      ...(Object.keys(details).length > 0 ? { details } : {}),
    };
  },
});
