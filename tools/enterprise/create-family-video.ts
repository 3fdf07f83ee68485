import { z } from 'zod';
import type { Config } from '../../src/config.js';
import { defineTool } from '../../src/define-tool.js';
import { UserInputError } from '../../src/errors.js';
import { estimate } from '../../src/jobs/envelope.js';
import { vendorName } from '../../src/vendors.js';
import { type FAMILY_SUFFIXES, familyIds } from './models/family.js';

/**
 * The spec shows only the field names seen for <vendorC>-2.5 ("full parameter sets: not shown"). Our
 * assumptions, each stated in the README: prompt 1-2000 characters (like the catalog models' prompts),
 * duration a whole number of seconds 1-15, aspect_ratio `W:H`, resolution `<N>p` or `4k`.
 */
const MAX_DURATION_S = 15;

/**
 * Assumed credits per second by model, because the platform reports `estimated_credits` only after
 * submission. Deliberately on the high side so consent never understates the cost.
 */
const ASSUMED_PER_SECOND: Record<(typeof FAMILY_SUFFIXES)[number], number> = {
  '-2.5': 20,
  '-2.0': 15,
  '-2.0-fast': 10,
};
/** Default duration is not published: price the omitted case as 10 s (an assumption, high side). */
const ASSUMED_DEFAULT_DURATION_S = 10;
/** Above 720p the assumption doubles, since resolution usually drives video price. */
const HIGH_RES = /^(1080p|1440p|2160p|4k)$/i;

/** @throws ConfigurationError naming GENPLAT_VENDORS when <vendorC> is unset. */
function familyModels(config: Config): string[] {
  return familyIds(vendorName(config.vendors, 'C', 'create_family_video'));
}

export default defineTool({
  name: 'create_family_video',
  title: 'Create a dedicated-family video',
  toolset: 'enterprise',
  description:
    'Starts a dedicated-family video (ids marked create_family_video in list_models) and returns a job handle. Billable — first call returns an assumed quote; the platform reports its own estimate after submission. Then call wait_for_jobs.',
  input: {
    model: z.string().min(1).max(64).describe('family model id from list_models, e.g. <name>-2.5'),
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
    if (!models.includes(input.model)) {
      throw new UserInputError('model', `must be one of ${models.join(', ')} (catalog models: use run_model)`);
    }
  },
  billable: {
    kind: () => 'family_video' as const,
    async estimate(input, ctx) {
      const vendorC = vendorName(ctx.config.vendors, 'C', 'create_family_video');
      const suffix = input.model.slice(vendorC.length) as keyof typeof ASSUMED_PER_SECOND;
      const perSecond = ASSUMED_PER_SECOND[suffix] ?? ASSUMED_PER_SECOND['-2.5'];
      const seconds = input.duration ?? ASSUMED_DEFAULT_DURATION_S;
      const factor = input.resolution && HIGH_RES.test(input.resolution) ? 2 : 1;
      return estimate(
        perSecond * seconds * factor,
        `assumed: ${perSecond} credits/s × ${seconds} s${input.duration ? '' : ' (default duration assumed)'}${factor > 1 ? ' × 2 above 720p' : ''}; the platform reports estimated_credits only after submission`,
      );
    },
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
      ...(Object.keys(details).length > 0 ? { details } : {}),
    };
  },
});
