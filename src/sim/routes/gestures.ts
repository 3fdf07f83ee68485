/**
 * Gestures: POST /gestures/generate and GET /gestures/status (result in `video_url`).
 * The spec only says the price is "reported in credits_charged"; the simulator charges 100 displayed credits
 * (like the other single-clip jobs) and answers 402 when the balance does not cover it.
 */

import { simJobOf } from '../../jobs/kinds/index.js';
import { asBody, requireString } from '../check.js';
import type { SimRoute } from '../types.js';
import { jobOr404, ok, optionalProjectId, requirePublicUrl } from './common.js';

export const GESTURE_PRICE = 100;

export const gestureRoutes: SimRoute[] = [
  {
    method: 'POST',
    path: '/gestures/generate',
    style: 'envelope',
    billable: true,
    insufficientStatus: 402,
    handle(req, ctx) {
      const body = asBody(req.json);
      requireString(body, 'prompt', { max: 2000 });
      requirePublicUrl(body, 'image_url', ctx);
      const projectId = ctx.projects.resolve(req.account, optionalProjectId(body));
      ctx.charge(req.account, GESTURE_PRICE, 402);
      const job = ctx.jobs.create({
        kind: simJobOf('gesture'),
        account: req.account,
        projectId,
        media: 'video',
        creditsCharged: GESTURE_PRICE,
      });
      return ok({
        id: job.id,
        project_id: projectId,
        status: 'processing',
        credits_charged: GESTURE_PRICE,
        _sim: true,
      });
    },
  },
  {
    method: 'GET',
    path: '/gestures/status',
    style: 'envelope',
    handle(req, ctx) {
      const job = jobOr404(ctx, simJobOf('gesture'), req, 'gesture job');
      const state = ctx.jobs.state(job);
      return ok({
        id: job.id,
        project_id: job.projectId,
        status: state,
        // Spec "Gesture job": credits_charged is one of the job's fields, so status reads report it too.
        credits_charged: job.creditsCharged,
        ...(state === 'completed' ? { video_url: job.outputs[0] } : {}),
        ...(job.outcome.kind === 'fail' && state === 'failed' ? { reason: job.outcome.reason } : {}),
        _sim: true,
      });
    },
  },
];
