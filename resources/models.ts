/**
 * `genplat://models` (what list_models shows) and `genplat://models/{model}` (one model's params as JSON
 * Schema plus rules, price and webhook support). The per-model schemas live here rather than in run_model's
 * input, which keeps tools/list small and free of unions (style.md 2.2, "Enterprise catalog").
 */
import type { Catalog } from '../src/catalog.js';
import type { Config } from '../src/config.js';
import { defineResource, defineResourceTemplate, variable } from '../src/define-resource.js';
import { UserInputError } from '../src/errors.js';
import { familyIds } from '../tools/enterprise/models/family.js';

/**
 * The rows and details need the model registry (13 model modules and their zod schemas): loaded on the first
 * read, so registering these resources at start-up does not load it.
 */
const listing = () => import('../tools/enterprise/models/listing.js');

/** The parts of the resource deps these reads use. */
export interface ModelResourceDeps {
  catalog: Catalog;
  config: Config;
}

export const MODELS_URI = 'genplat://models';
export const MODEL_URI_TEMPLATE = 'genplat://models/{model}';
export const modelUri = (model: string) => `${MODELS_URI}/${encodeURIComponent(model)}`;

export async function readModels(deps: ModelResourceDeps): Promise<Record<string, unknown>> {
  const { modelRows } = await listing();
  const models = modelRows(await deps.catalog.models(), deps.config.vendors);
  return { models, details: `${MODEL_URI_TEMPLATE} has each model's params schema` };
}

/** @throws UserInputError when the id is neither in the live catalog nor a dedicated-family id. */
export async function readModel(deps: ModelResourceDeps, model: string): Promise<Record<string, unknown>> {
  const { familyRows, modelDetail } = await listing();
  const entry = (await deps.catalog.models()).find((e) => e.model === model);
  if (entry) return modelDetail(entry, deps.config.vendors);
  const family = familyRows(deps.config.vendors).find((r) => r.model === model);
  if (family) {
    return {
      ...family,
      call: 'create_family_video {model, prompt, duration?, aspect_ratio?, resolution?, generate_audio?}',
      notes:
        'Dedicated video family: not in the catalog and not run through run_model. Inputs are top-level fields; webhook_url is not forwarded; the price is reported after submission.',
    };
  }
  throw new UserInputError('model', `"${model}" is not in the catalog; read ${MODELS_URI} or call list_models`);
}

/** Every catalog id and family id (define-resource filters by prefix and caps the list). */
export async function modelIds(deps: ModelResourceDeps): Promise<string[]> {
  const ids = (await deps.catalog.models()).map((e) => e.model);
  if (deps.config.vendors.C) ids.push(...familyIds(deps.config.vendors.C));
  return ids;
}

/** The template variable, percent-decoded (the SDK hands it over as it appeared in the URI). */
function modelVariable(vars: Parameters<typeof variable>[0]): string {
  const raw = variable(vars, 'model');
  if (!raw) throw new UserInputError('model', `missing; use ${MODEL_URI_TEMPLATE}`);
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new UserInputError('model', 'is not a valid percent-encoded id');
  }
}

export default [
  defineResource({
    name: 'models',
    uri: MODELS_URI,
    title: 'Image and video models',
    description:
      'The live model catalog (id, media, credits, webhook support, local schema) plus the dedicated video family. Used by run_model and create_family_video.',
    read: (deps) => readModels(deps),
  }),
  defineResourceTemplate({
    name: 'model',
    uriTemplate: MODEL_URI_TEMPLATE,
    title: 'One model: params schema and rules',
    description:
      "One model's params as JSON Schema, with rules, price and webhook support: what run_model's params must hold.",
    // No `list`: resources/list is part of a host's connect-time listing, and one entry per catalog model meant
    // a platform read (and the HTTP client loaded) before the first tool call (issue 20 item 7). The models are
    // found through genplat://models, list_models and this template's completion, each read when asked.
    complete: { model: (deps) => modelIds(deps) },
    read: (deps, _uri, vars) => readModel(deps, modelVariable(vars)),
  }),
];
