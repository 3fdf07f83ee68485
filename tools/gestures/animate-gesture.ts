import { z } from 'zod';
import { defineTool } from '../../src/define-tool.js';
import { gestureEstimate } from '../../src/paid/pricing/estimate.js';
import { projectId } from '../_shared/params.js';
import { publicMediaUrl } from '../_shared/urls.js';

/** The spec gives no prompt limit; 2,000 characters bounds input size (the catalog models' prompt bound). */
const PROMPT_MAX = 2000;

/** POST /gestures/generate: animate a still image of a person. Price known only after submission. */
export default defineTool({
  name: 'animate_gesture',
  title: 'Animate a gesture',
  toolset: 'gestures',
  description:
    'Animates a person in a still image. Variants: create_campaign. Billable, unpublished price: always asks.',
  input: {
    prompt: z.string().trim().min(1).max(PROMPT_MAX).describe('the motion, e.g. waves'),
    image_url: publicMediaUrl('person image'),
    project_id: projectId().optional(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  billable: {
    kind: () => 'gesture',
    estimate: async (_input, ctx) => gestureEstimate(ctx.config),
    summary: (i) => `gesture animation, ${i.prompt.length}-char prompt`,
  },
  request(input) {
    const body = {
      prompt: input.prompt,
      image_url: input.image_url,
      ...(input.project_id ? { project_id: input.project_id } : {}),
    };
    return { route: '/gestures/generate', body };
  },
  async run(_input, ctx, { body }) {
    // No `signal`: once the paid POST is on its way, finishing it is the only way to learn the job id.
    const { data, requestId } = await ctx.client.gestures.generate(body);
    return {
      ref: { kind: 'gesture', id: data.id },
      requestId,
      remote: { id: data.id, ...(data.project_id ? { project_id: data.project_id } : {}) },
      ...(data.credits_charged !== undefined ? { creditsCharged: data.credits_charged } : {}),
    };
  },
});
