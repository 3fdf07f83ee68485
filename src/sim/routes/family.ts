/**
 * The dedicated <vendorC> video family (envelope): POST /<vendorC>/generate and GET /<vendorC>/status.
 * Paths follow the sandbox VendorMap. Values and prices are sandbox assumptions (see ../models/family.ts).
 */

import { simJobOf } from '../../jobs/kinds/index.js';
import { asBody, optionalString } from '../check.js';
import { vendor } from '../models/catalog.js';
import { validateFamily } from '../models/family.js';
import {
  type SimAccount,
  type SimContext,
  SimHttpError,
  type SimJob,
  type SimRequest,
  type SimRoute,
} from '../types.js';

/** Insufficient credits on the dedicated family path: 402 (the spec leaves 400 vs 402 to the path). */
const INSUFFICIENT = 402;

function generate(req: SimRequest, ctx: SimContext) {
  // "Dedicated-family generation needs an eligible subscription": paid (checked by the core) plus the feature.
  if (!req.account.features.dedicatedFamily)
    throw new SimHttpError(403, 'dedicated family generation is not available on this subscription');
  const body = asBody(req.json);
  const plan = validateFamily(body, ctx.vendors);
  // webhook_url: the spec says this family "does not forward" it, so it is accepted and silently ignored,
  // which is what a client would observe (no callback ever arrives).
  // project_id is not among the fields the spec shows here, but the answer carries one: reuse or create.
  const project = ctx.projects.resolve(req.account, optionalString(body, 'project_id', { min: 1, max: 256 }));
  ctx.charge(req.account, plan.credits, INSUFFICIENT);
  const job = ctx.jobs.create({
    kind: simJobOf('family_video'),
    account: req.account,
    projectId: project,
    media: 'video',
    creditsCharged: plan.credits,
    meta: {
      model: plan.model,
      videoType: plan.videoType,
      width: plan.width,
      height: plan.height,
      durationS: plan.durationS,
      // The engine would register it with its generic geometry; registerOwned() uses this video's real one.
      ownedVideoType: null,
    },
  });
  return {
    status: 200,
    body: {
      id: job.id,
      project_id: job.projectId,
      model: plan.model,
      status: 'processing',
      estimated_credits: plan.credits,
      credits_charged: plan.credits,
    },
  };
}

function status(req: SimRequest, ctx: SimContext) {
  const id = req.query.get('id');
  if (!id) throw new SimHttpError(400, 'id: is required');
  const job = ctx.jobs.get(simJobOf('family_video'), id, req.account);
  if (!job) throw new SimHttpError(404, 'video not found');
  const state = ctx.jobs.state(job);
  if (state === 'completed') registerOwned(job, ctx);
  return {
    status: 200,
    body: {
      id: job.id,
      status: state,
      ...(state === 'completed' && job.outputs[0] ? { url: job.outputs[0] } : {}),
      ...(state === 'failed' && job.outcome.kind === 'fail' ? { reason: job.outcome.reason } : {}),
    },
  };
}

/**
 * Finished family videos of the account become owned videos (upscale calls this before looking a video up,
 * so a video is owned as soon as it has finished, whether or not its status was read).
 */
export function registerFinishedFamilyVideos(ctx: SimContext, account: SimAccount): void {
  for (const job of ctx.jobs.all()) {
    if (job.kind === simJobOf('family_video') && job.accountKey === account.key && ctx.jobs.state(job) === 'completed')
      registerOwned(job, ctx);
  }
}

/** A finished family video becomes an owned video that upscale can probe (unless already known). */
function registerOwned(job: SimJob, ctx: SimContext): void {
  if (ctx.ownedVideos.has(job.id) || !job.outputs[0]) return;
  ctx.ownedVideos.set(job.id, {
    videoId: job.id,
    projectId: job.projectId,
    videoType: String(job.meta.videoType),
    accountKey: job.accountKey,
    url: job.outputs[0],
    width: Number(job.meta.width),
    height: Number(job.meta.height),
    durationS: Number(job.meta.durationS),
    // The family renders at 24 fps (sandbox assumption; within upscale's 60 fps source limit).
    fps: 24,
  });
}

export const familyRoutes: SimRoute[] = [
  {
    method: 'POST',
    path: (ctx) => `/${vendor(ctx.vendors, 'C')}/generate`,
    style: 'envelope',
    billable: true,
    insufficientStatus: INSUFFICIENT,
    handle: generate,
  },
  { method: 'GET', path: (ctx) => `/${vendor(ctx.vendors, 'C')}/status`, style: 'envelope', handle: status },
];
