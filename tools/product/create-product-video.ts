import { z } from 'zod';
import { PRODUCT_ROUTES } from '../../src/client/areas/products.js';
import type { ProductEngine } from '../../src/client/types.js';
import type { VendorLetter } from '../../src/config.js';
import { defineTool } from '../../src/define-tool.js';
import { UserInputError } from '../../src/errors.js';
import { productHumanEstimate, productV2Estimate, scenesEstimate } from '../../src/paid/pricing/estimate.js';
import { resolveVendors, vendorName } from '../../src/vendors.js';
import { requireVoice } from '../_shared/catalog-ids.js';
import { projectId, voiceId } from '../_shared/params.js';
import { publicMediaUrl, webhookUrlField } from '../_shared/urls.js';

/** Spec "Limits": product-in-hand audio, 90 s (<vendorL>-v2) and 30 s (<vendorM>-human). */
const AUDIO_LIMIT_S = { v2: 90, human: 30 } as const;
/** The vendor letter in each engine's route (spec, "Product-in-hand"). */
const ENGINE_VENDOR: Record<ProductEngine, VendorLetter> = { v2: 'L', human: 'M', scenes: 'F' };
/** The spec gives no script length limit; this bounds input size only (90 s of speech is ~1,350 characters). */
const SCRIPT_MAX = 5000;

const text = (what: string) => z.string().trim().min(1).max(SCRIPT_MAX).describe(what);

/** POST /product-in-hand/{engine}/generate: three engines, one tool, flat input (no root anyOf). */
export default defineTool({
  name: 'create_product_video',
  title: 'Product-in-hand video',
  toolset: 'product',
  description:
    'Product-in-hand video from a product image; v2/human: script + voice_id (list_voices) or voice_url. Variants: create_campaign. Billable.',
  input: {
    engine: z.enum(['v2', 'human', 'scenes']).describe('v2 (audio ≤90 s), human (≤30 s) or scenes'),
    image_url: publicMediaUrl('product image'),
    script: text('v2/human: TTS script').optional(),
    voice_id: voiceId().optional(),
    voice_url: publicMediaUrl('v2/human: audio instead of script').optional(),
    audio_seconds: z.number().positive().max(AUDIO_LIMIT_S.v2).optional().describe('voice_url length (s), not sent'),
    project_id: projectId().optional(),
    webhook_url: webhookUrlField(),
    scenes: z
      .array(
        z.strictObject({
          script: text('spoken text'),
          description: text('what it shows'),
        }),
      )
      .min(1)
      .max(4)
      .optional()
      .describe('scenes engine only'),
    model: z.enum(['pro', 'fast']).optional().describe('scenes: tier'),
    end_image_url: publicMediaUrl('scenes: ending frame').optional(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async validate(input, ctx) {
    // The route carries a vendor name: an unset letter fails here, before any estimate or consent.
    vendorName(ctx.config.vendors, ENGINE_VENDOR[input.engine], `create_product_video (engine ${input.engine})`);
    if (input.engine === 'scenes') {
      if (input.scenes === undefined) throw new UserInputError('scenes', 'required with engine scenes (1-4 scenes)');
      // The scenes route has voice_id but no script or voice_url: each scene carries its own script.
      for (const f of ['script', 'voice_url', 'audio_seconds'] as const) {
        if (input[f] !== undefined)
          throw new UserInputError(f, 'not accepted with engine scenes; put the script in scenes');
      }
      if (input.voice_id !== undefined) await requireVoice(ctx, input.voice_id);
      return;
    }
    for (const f of ['scenes', 'model', 'end_image_url'] as const) {
      if (input[f] !== undefined) throw new UserInputError(f, `only with engine scenes, not ${input.engine}`);
    }
    if (input.voice_url === undefined) {
      if (input.script === undefined) throw new UserInputError('script', 'required unless voice_url is given');
      if (input.voice_id === undefined) throw new UserInputError('voice_id', 'required unless voice_url is given');
      if (input.audio_seconds !== undefined) {
        throw new UserInputError('audio_seconds', 'only with voice_url (a script is timed by the platform)');
      }
    }
    const limit = AUDIO_LIMIT_S[input.engine];
    if (input.audio_seconds !== undefined && input.audio_seconds > limit) {
      throw new UserInputError('audio_seconds', `engine ${input.engine} accepts audio of at most ${limit} s`);
    }
    // Last: the local rules above cost nothing, this may read the voice list.
    if (input.voice_id !== undefined) await requireVoice(ctx, input.voice_id);
  },
  billable: {
    // All three product-in-hand routes list webhook_url ("status callback URL").
    acceptsCallback: () => true,
    kind: () => 'product_video',
    async estimate(input) {
      if (input.engine === 'v2') return productV2Estimate();
      if (input.engine === 'scenes') {
        // The spec shows no default model; price an omitted one as pro, the dearer, so consent covers it.
        const e = scenesEstimate(input.scenes?.length ?? 0, input.model ?? 'pro');
        return input.model
          ? e
          : { ...e, basis: `${e.basis}; model omitted and its default is unpublished, so priced as pro` };
      }
      // Neither a voice_url's length (a caller's audio_seconds is a claim, not a measurement) nor a script's
      // spoken length (the platform's TTS pace is unpublished) is known before sending: the upper tier, always.
      return productHumanEstimate(undefined);
    },
    summary: (i) =>
      i.engine === 'scenes'
        ? `product video (scenes, ${i.model ?? 'default model'}), ${i.scenes?.length ?? 0} scene(s)`
        : `product video (${i.engine}), ${i.voice_url ? 'own audio' : `${i.script?.length ?? 0}-char script, voice ${i.voice_id}`}`,
  },
  request(input, ctx) {
    const { engine, image_url, project_id, webhook_url, voice_id } = input;
    const shared = {
      image_url,
      ...(voice_id ? { voice_id } : {}),
      ...(project_id ? { project_id } : {}),
      ...(webhook_url ? { webhook_url } : {}),
    };
    // audio_seconds is ours (pricing only) and never reaches the platform.
    const body =
      engine === 'scenes'
        ? {
            ...shared,
            scenes: input.scenes,
            ...(input.model ? { model: input.model } : {}),
            ...(input.end_image_url ? { end_image_url: input.end_image_url } : {}),
          }
        : {
            ...shared,
            ...(input.script ? { script: input.script } : {}),
            ...(input.voice_url ? { voice_url: input.voice_url } : {}),
          };
    const what = `create_product_video (engine ${engine})`;
    return { route: resolveVendors(ctx.config.vendors, PRODUCT_ROUTES[engine], what), body };
  },
  async run(input, ctx, { body }) {
    const { engine } = input;
    // No `signal`: once the paid POST is on its way, finishing it is the only way to learn the job id.
    const { data, requestId } = await ctx.client.products.generate(engine, body);
    const project = typeof data.project_id === 'string' ? data.project_id : undefined;
    return {
      ref: { kind: 'product_video', id: data.id },
      requestId,
      remote: { id: data.id, ...(project ? { project_id: project } : {}) },
    };
  },
});
