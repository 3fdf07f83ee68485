/**
 * Enterprise models (flat responses): the catalog, the generic generate endpoint and the status endpoint.
 * Per-model rules live in `../models/`; this file only does the endpoint-level rules and the job mapping.
 */

import { simJobOf } from '../../jobs/kinds/index.js';
import { asBody, type Body, bad, optionalString, rejectBillingControls, requireString } from '../check.js';
import { buildCatalog, findModel, vendor } from '../models/catalog.js';
import { familyModels } from '../models/family.js';
import { type SimContext, SimHttpError, type SimJob, type SimRequest, type SimRoute } from '../types.js';

/**
 * Insufficient credits on the enterprise path answer 402 (the spec: "400 or 402 depending on the generation
 * path"); the sandbox keeps 400 for the older envelope routes and uses 402 for this newer generic one.
 */
const INSUFFICIENT = 402;
const TOP_LEVEL = ['model', 'params', 'project_id', 'webhook_url'] as const;

function listModels(_req: SimRequest, ctx: SimContext) {
  return {
    status: 200,
    body: { models: buildCatalog(ctx.vendors).map(({ model, media, credits }) => ({ model, media, credits })) },
  };
}

function generate(req: SimRequest, ctx: SimContext) {
  const body = asBody(req.json);
  rejectBillingControls(body);
  for (const key of Object.keys(body)) {
    if (!(TOP_LEVEL as readonly string[]).includes(key))
      bad(`${key}: model inputs go inside params; top-level fields are model, params, project_id, webhook_url`);
  }
  const id = requireString(body, 'model');
  const model = findModel(ctx.vendors, id);
  // An unknown id is invalid input, not a missing resource (the spec's 404 is for avatars and voices): 400.
  if (!model) {
    const hint = familyModels(ctx.vendors).includes(id)
      ? ` (dedicated family: use POST /${vendor(ctx.vendors, 'C')}/generate)`
      : '';
    bad(`model: unknown model "${id}"; see GET /enterprise/models${hint}`);
  }
  const params = body.params;
  if (params === undefined || params === null) bad('params: is required');
  if (typeof params !== 'object' || Array.isArray(params)) bad('params: must be an object');
  const projectId = optionalString(body, 'project_id', { min: 1, max: 256 });
  const webhookUrl = optionalString(body, 'webhook_url', { min: 1 });
  if (webhookUrl !== undefined) {
    if (model.pollingOnly) bad(`webhook_url: ${model.model} is polling-only; poll GET /enterprise/status/{request_id}`);
    if (!ctx.isWebhookUrl(webhookUrl, { httpsOnly: true })) bad('webhook_url: must be a public https URL');
  }
  // An accepted webhook gets one callback at the terminal state (routes/library.ts onJobTerminal); the spec does
  // not show its shape, delivery is "not guaranteed", and polling stays the contract.
  const quote = model.validate(params as Body, { isPublicUrl: (u, o) => ctx.isPublicUrl(u, o) });
  const project = ctx.projects.resolve(req.account, projectId);
  ctx.charge(req.account, quote.credits, INSUFFICIENT);
  const job = ctx.jobs.create({
    kind: simJobOf('model'),
    account: req.account,
    projectId: project,
    media: model.media,
    creditsCharged: quote.credits,
    outputCount: quote.outputCount,
    meta: { model: model.model, stringStatus: model.stringStatus, lagReadsServed: 0 },
    webhookUrl,
  });
  return {
    status: 200,
    body: {
      request_id: job.id,
      project_id: job.projectId,
      media: job.media,
      model: model.model,
      status: 'queued',
      message: `Request queued. Poll GET /enterprise/status/${job.id} for the result.`,
    },
  };
}

const INT_STATE = { processing: 0, completed: 1, failed: 2 } as const;

function status(req: SimRequest, ctx: SimContext) {
  const media = req.query.get('media');
  if (media !== null && media !== 'image' && media !== 'video') bad('media: must be image or video');
  const id = req.params.requestId ?? '';
  const job = ctx.jobs.get(simJobOf('model'), id, req.account);
  // With `media` given only that kind is looked up; without it, video then image — one id space either way.
  if (!job || (media !== null && job.media !== media)) throw new SimHttpError(404, 'request not found');
  const state = ctx.jobs.state(job);
  const outputs = state === 'completed' && !lagging(job) ? job.outputs : [];
  const stateValue = job.media === 'video' && job.meta.stringStatus === true ? state : INT_STATE[state];
  const times = {
    created_at: new Date(job.createdAt).toISOString(),
    updated_at: new Date(state === 'processing' ? job.createdAt : job.finishAt).toISOString(),
  };
  const failure = job.outcome.kind === 'fail' && state === 'failed' ? { error: job.outcome.reason } : {};
  const body =
    job.media === 'image'
      ? {
          request_id: job.id,
          media: 'image',
          status: stateValue,
          mode: job.meta.model,
          project_id: job.projectId,
          output: { output_link: outputs },
          ...times,
          ...failure,
        }
      : {
          request_id: job.id,
          media: 'video',
          status: stateValue,
          ...(outputs[0] ? { video_url: outputs[0] } : {}),
          ...times,
          ...failure,
        };
  return { status: 200, body };
}

/** "Status 1 but no output yet": the first `outputLagPolls` completed reads carry no output. */
function lagging(job: SimJob): boolean {
  const served = Number(job.meta.lagReadsServed ?? 0);
  if (served >= job.outputLagPolls) return false;
  job.meta.lagReadsServed = served + 1;
  return true;
}

export const enterpriseRoutes: SimRoute[] = [
  { method: 'GET', path: '/enterprise/models', style: 'flat', handle: listModels },
  {
    method: 'POST',
    path: '/enterprise/generate',
    style: 'flat',
    billable: true,
    insufficientStatus: INSUFFICIENT,
    handle: generate,
  },
  { method: 'GET', path: /^\/enterprise\/status\/(?<requestId>[^/]+)$/, style: 'flat', handle: status },
];
