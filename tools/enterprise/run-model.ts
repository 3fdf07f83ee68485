import { z } from 'zod';
import type { CatalogEntry } from '../../src/client/schemas.js';
import { defineTool, type ToolContext } from '../../src/define-tool.js';
import { UserInputError } from '../../src/errors.js';
import { estimate } from '../../src/jobs/envelope.js';
import type { ModelMedia } from '../../src/jobs/handle.js';
import { unboundedEstimate } from '../../src/paid/pricing/estimate.js';
import { CATALOG_ID_FIELDS, requireListed } from '../_shared/catalog-ids.js';
import { webhookUrlField } from '../_shared/urls.js';
import { looksLikeFamilyId } from './models/family.js';

/**
 * The model registry (13 model modules), the params checker and the pricing helpers load on the first
 * validate/estimate/run: tools/list needs none of them, and every module loaded before it is start-up time.
 */
async function models() {
  const [{ matchModel }, { checkParams }, { modelPrice }] = await Promise.all([
    import('./models/index.js'),
    import('./models/check.js'),
    import('./models/price.js'),
  ]);
  return { matchModel, checkParams, modelPrice };
}

/**
 * Media per model id, remembered from the live catalog: `summary()` gets no context, and the consent line
 * should say whether an image or a video will be made. Catalog data only, never user data.
 */
const mediaSeen = new Map<string, 'image' | 'video'>();

const asMedia = (m: string | undefined): 'image' | 'video' | undefined =>
  m === 'image' || m === 'video' ? m : undefined;

/** @throws UserInputError when the id is not in the live catalog (pointing family ids to their tool). */
async function catalogEntry(model: string, ctx: ToolContext): Promise<CatalogEntry> {
  // The quote needs the entry (its credits text): a catalog that cannot be read fails the call.
  const entry = await requireListed(ctx, {
    field: 'model',
    what: 'model',
    id: model,
    listTool: CATALOG_ID_FIELDS.model,
    list: 'models',
    read: (c) => c.models(),
    matches: (e) => e.model === model,
    price: true,
    explain: () =>
      looksLikeFamilyId(model, ctx.config.vendors)
        ? new UserInputError('model', 'is a dedicated-family model: use create_family_video')
        : undefined,
  });
  const media = asMedia(entry.media);
  if (media) mediaSeen.set(model, media);
  return entry;
}

export default defineTool({
  name: 'run_model',
  title: 'Run a catalog model',
  toolset: 'enterprise',
  description:
    'Runs a catalog image/video model (id from list_models; params per genplat://models/{model}). Variants: create_campaign. Billable.',
  input: {
    model: z.string().min(1).max(256).describe('catalog model id from list_models'),
    // An open object keeps per-model unions out of tools/list; each model's schema lives in the resource.
    params: z.record(z.string(), z.unknown()).describe('model inputs, per genplat://models/{model}'),
    project_id: z.string().min(1).max(256).optional().describe('existing project'),
    webhook_url: webhookUrlField(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async validate(input, ctx) {
    await catalogEntry(input.model, ctx);
    const { matchModel, checkParams } = await models();
    const spec = matchModel(input.model, ctx.config.vendors);
    checkParams(spec, input.params);
    // Spec: "Models marked polling-only reject webhook_url before a job is submitted."
    if (input.webhook_url && spec && !spec.webhook) {
      throw new UserInputError('webhook_url', 'this model is polling-only; omit it and use wait_for_jobs');
    }
  },
  billable: {
    kind: () => 'model' as const,
    async estimate(input, ctx) {
      const entry = await catalogEntry(input.model, ctx);
      const { matchModel, modelPrice } = await models();
      const price = modelPrice(matchModel(input.model, ctx.config.vendors), input.params, entry.credits);
      if (price.bounded) return estimate(price.credits, price.basis);
      return unboundedEstimate(ctx.config, [`run_model:${input.model}`, 'run_model'], price.basis);
    },
    // Only models whose webhook support the spec states: polling-only ones reject webhook_url before a job is
    // submitted (it would turn a good call into a 400), and an unstated one might too.
    async acceptsCallback(input, ctx) {
      const spec = (await models()).matchModel(input.model, ctx.config.vendors);
      return spec?.webhook === true && spec.webhookStated;
    },
    summary: (input) => {
      const media = mediaSeen.get(input.model);
      return `run ${input.model}${media ? ` (${media})` : ''}`;
    },
  },
  request(input) {
    const { model, params, project_id, webhook_url } = input;
    // Spec rule 1: model inputs inside params; model, project_id and webhook_url at the top level.
    const body = {
      model,
      params,
      ...(project_id ? { project_id } : {}),
      ...(webhook_url ? { webhook_url } : {}),
    };
    return { route: '/enterprise/generate', body };
  },
  async run(input, ctx, { body }) {
    const { model, project_id, webhook_url } = input;
    // Before the POST (already loaded by validate): nothing that could fail sits between it and the result.
    const { matchModel } = await models();
    const { data, requestId } = await ctx.client.enterprise.generate(body, { signal: ctx.signal });
    const spec = matchModel(model, ctx.config.vendors);
    const media: ModelMedia = asMedia(data.media) ?? mediaSeen.get(model) ?? spec?.media ?? 'any';
    const details: Record<string, unknown> = {};
    if (!spec) {
      details.warning =
        'No published parameter schema for this model: params were sent unchecked, so the platform validates them.';
    } else if (webhook_url && !spec.webhookStated) {
      details.warning = 'Webhook support of this model is not published; keep polling with wait_for_jobs.';
    }
    const projectId = data.project_id ?? project_id;
    return {
      ref: { kind: 'model' as const, id: data.request_id, media },
      requestId,
      remote: { id: data.request_id, ...(projectId ? { project_id: projectId } : {}) },
      ...(Object.keys(details).length > 0 ? { details } : {}),
    };
  },
});
