/**
 * Video upscale (envelope, strict): quote, generate (one billable attempt per call, not idempotent) and the
 * attempt status. Body rules, limits and prices live in ../models/upscale.ts.
 *
 * Attempt lifecycle as the sandbox plays it (the spec names the states but not the transitions):
 * - preparing: the first PREPARE_FRACTION of the job's duration. The credits are already held (reserved at
 *   acceptance, so a second submit is visibly charged again), but `credits_charged` still reads 0;
 * - charged: the rest of the duration; `credits_charged` = the attempt's price;
 * - completed: the job completed; the owned video's url (and size) switch to the upscaled output only now;
 * - refunded: the job was scripted to fail with a reason containing "refund" (`scriptNext({outcome:
 *   {kind:'fail', reason:'… refund …'}})`): `credits_refunded` = `credits_charged`, balance restored;
 * - failed: any other scripted failure: `error` = the reason, nothing refunded.
 * Terminal effects (url switch, refund) are applied once, lazily, by whichever request first sees them.
 */

import { simJobOf } from '../../jobs/kinds/index.js';
import { asBody, bad, requireString } from '../check.js';
import { planUpscale, type UpscaleBody, validateUpscaleBody } from '../models/upscale.js';
import {
  type OwnedVideo,
  type SimAccount,
  type SimContext,
  SimHttpError,
  type SimJob,
  type SimRequest,
  type SimRoute,
} from '../types.js';
import { registerFinishedFamilyVideos } from './family.js';

/** Insufficient credits on the upscale path: 400 (the spec allows 400 or 402 by path). */
const INSUFFICIENT = 400;
/** Share of an attempt's duration spent in `preparing` (sandbox choice, so tests can observe both phases). */
const PREPARE_FRACTION = 0.3;

type AttemptState = 'preparing' | 'charged' | 'completed' | 'refunded' | 'failed';

/** "POST operations need an active paid subscription and a positive credit balance" — quote included. */
function requirePaidAndPositive(account: SimAccount): void {
  if (account.subscription !== 'paid') throw new SimHttpError(403, 'upscale needs an active paid subscription');
  if (account.credits <= 0) throw new SimHttpError(INSUFFICIENT, 'insufficient credits: the balance must be positive');
}

function findVideo(ctx: SimContext, account: SimAccount, b: Pick<UpscaleBody, 'videoId' | 'projectId' | 'videoType'>) {
  registerFinishedFamilyVideos(ctx, account);
  const video = ctx.ownedVideos.get(b.videoId);
  // Another account's video, or a wrong project/type, looks exactly like a missing one.
  if (!video || video.accountKey !== account.key || video.projectId !== b.projectId || video.videoType !== b.videoType)
    throw new SimHttpError(404, 'video not found for this project_id and video_type');
  settleAll(ctx, account, video);
  return video;
}

async function quote(req: SimRequest, ctx: SimContext) {
  requirePaidAndPositive(req.account);
  const b = validateUpscaleBody(asBody(req.json), ctx.vendors);
  const video = findVideo(ctx, req.account, b);
  // Probing the source takes time on the platform (up to 370 s); the sandbox waits a scaled-down delay.
  await new Promise((r) => setTimeout(r, ctx.slowOpMs));
  const plan = planUpscale(video, b);
  return {
    status: 200,
    body: {
      success: true,
      videoId: video.videoId,
      modelFamily: b.modelFamily,
      model: b.model,
      upscaleFactor: plan.factor,
      metadata: {
        width: video.width,
        height: video.height,
        duration: video.durationS,
        fps: video.fps,
        frames: plan.frames,
      },
      quote: { credits: plan.credits },
    },
  };
}

function generate(req: SimRequest, ctx: SimContext) {
  const b = validateUpscaleBody(asBody(req.json), ctx.vendors);
  const video = findVideo(ctx, req.account, b);
  // "Submission obtains its own current quote": priced again here, whatever an earlier quote said.
  const plan = planUpscale(video, b);
  // Deliberately no "attempt already active" check: the platform is not idempotent and charges again.
  ctx.charge(req.account, plan.credits, INSUFFICIENT);
  const job = ctx.jobs.create({
    kind: simJobOf('upscale'),
    account: req.account,
    projectId: video.projectId,
    media: 'video',
    creditsCharged: plan.credits,
    meta: {
      videoId: video.videoId,
      projectId: video.projectId,
      videoType: video.videoType,
      width: plan.width,
      height: plan.height,
      settled: false,
      // An attempt is not a new video: the engine must not register it as an owned one.
      ownedVideoType: null,
    },
  });
  return {
    status: 200,
    body: { id: video.videoId, billing_id: job.id, project_id: video.projectId, status: 'processing' },
  };
}

function attemptState(job: SimJob, ctx: SimContext): AttemptState {
  const state = ctx.jobs.state(job);
  if (state === 'completed') return 'completed';
  if (state === 'failed')
    return job.outcome.kind === 'fail' && /refund/i.test(job.outcome.reason) ? 'refunded' : 'failed';
  const preparedAt = job.createdAt + (job.finishAt - job.createdAt) * PREPARE_FRACTION;
  return Date.now() < preparedAt ? 'preparing' : 'charged';
}

/** Applies a finished attempt's effect once: the url switch on completion, the refund on `refunded`. */
function settle(job: SimJob, ctx: SimContext, account: SimAccount): AttemptState {
  const state = attemptState(job, ctx);
  if (job.meta.settled === true) return state;
  if (state === 'completed') {
    const video = ctx.ownedVideos.get(String(job.meta.videoId));
    if (video && job.outputs[0]) {
      video.url = job.outputs[0];
      video.width = Number(job.meta.width);
      video.height = Number(job.meta.height);
    }
    job.meta.settled = true;
  } else if (state === 'refunded') {
    ctx.refund(account, job.creditsCharged);
    job.meta.settled = true;
  } else if (state === 'failed') {
    job.meta.settled = true;
  }
  return state;
}

function settleAll(ctx: SimContext, account: SimAccount, video: OwnedVideo): void {
  for (const job of ctx.jobs.all()) {
    if (job.kind === simJobOf('upscale') && job.accountKey === account.key && job.meta.videoId === video.videoId)
      settle(job, ctx, account);
  }
}

const STATUS_QUERY = ['video_id', 'project_id', 'video_type', 'billing_id'] as const;

function status(req: SimRequest, ctx: SimContext) {
  const q: Record<string, unknown> = {};
  for (const f of STATUS_QUERY) q[f] = req.query.get(f) ?? undefined;
  for (const f of STATUS_QUERY) requireString(q, f, { min: 1, max: 256 });
  for (const f of ['user_id', 'webhook_url']) if (req.query.has(f)) bad(`${f}: must not be sent`);
  const job = ctx.jobs.get(simJobOf('upscale'), String(q.billing_id), req.account);
  if (
    !job ||
    job.meta.videoId !== q.video_id ||
    job.meta.projectId !== q.project_id ||
    job.meta.videoType !== q.video_type
  )
    throw new SimHttpError(404, 'upscale attempt not found');
  const state = settle(job, ctx, req.account);
  return {
    status: 200,
    body: {
      id: job.meta.videoId,
      billing_id: job.id,
      status: state,
      video_url: state === 'completed' ? (job.outputs[0] ?? null) : null,
      credits_charged: state === 'preparing' ? 0 : job.creditsCharged,
      credits_refunded: state === 'refunded' ? job.creditsCharged : 0,
      error: state === 'failed' && job.outcome.kind === 'fail' ? job.outcome.reason : null,
    },
  };
}

export const upscaleRoutes: SimRoute[] = [
  // Not `billable` (it starts no job), but the spec's POST rule applies: checked in the handler.
  { method: 'POST', path: '/upscale/quote', style: 'envelope', handle: quote },
  {
    method: 'POST',
    path: '/upscale/generate',
    style: 'envelope',
    billable: true,
    insufficientStatus: INSUFFICIENT,
    handle: generate,
  },
  { method: 'GET', path: '/upscale/status', style: 'envelope', handle: status },
];
