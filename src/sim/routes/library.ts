/**
 * Content library: templates, categories, generate, status, and the terminal-state webhook
 * (`video2video.job.terminal`), POSTed once when the job is first seen terminal or at its finish time.
 * Insufficient credits answer 402. Unknown `category` filters answer 400 rather than an empty list, so a
 * typo is not mistaken for "no templates".
 */

import { randomUUID } from 'node:crypto';
import { simJobOf } from '../../jobs/kinds/index.js';
import { asBody, bad } from '../check.js';
import { simCharge } from '../price-text.js';
import { type SimContext, SimHttpError, type SimJob, type SimRoute } from '../types.js';
import { jobOr404, ok, optionalProjectId, optionalWebhook, progressOf } from './common.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The spec's callback payload. `completed_at` is written with an explicit +00:00 offset. */
export function libraryWebhookPayload(job: SimJob, state: 'completed' | 'failed'): Record<string, unknown> {
  return {
    event: 'video2video.job.terminal',
    job_id: job.meta.jobUuid,
    video_id: job.id,
    status: state,
    template_id: job.meta.templateId,
    video_url: state === 'completed' ? (job.outputs[0] ?? null) : null,
    thumbnail_url: state === 'completed' ? (job.meta.thumbnailUrl ?? null) : null,
    error: job.outcome.kind === 'fail' ? job.outcome.reason : null,
    completed_at: new Date(Math.max(job.finishAt, 0)).toISOString().replace('Z', '+00:00'),
  };
}

/**
 * Terminal hook, wired by the simulator to the job engine: one callback per job that was given a webhook_url.
 * Content library jobs get the spec's payload. The other endpoints that accept webhook_url (talking-actor,
 * product-in-hand, enterprise models that support it) "may send a callback" whose shape the spec does not
 * show: they get a minimal one marked `_sim`, so nothing may rely on its fields (our receiver reads none).
 */
export function onJobTerminal(job: SimJob, state: 'completed' | 'failed', ctx: SimContext): void {
  if (!job.webhookUrl) return;
  const payload =
    job.kind === simJobOf('template_video')
      ? libraryWebhookPayload(job, state)
      : { id: job.id, status: state, _sim: 'callback shape not published by the platform' };
  ctx.sendWebhook(job.webhookUrl, payload);
}

export const libraryRoutes: SimRoute[] = [
  {
    method: 'GET',
    path: '/content-library/templates',
    style: 'envelope',
    handle(req, ctx) {
      const category = req.query.get('category') || 'all';
      if (!ctx.data.categories.some((c) => c.value === category)) {
        bad(`category: unknown category "${category}"; see GET /content-library/categories`);
      }
      return ok(ctx.data.templates.filter((t) => category === 'all' || t.category.includes(category)));
    },
  },
  {
    method: 'GET',
    path: '/content-library/categories',
    style: 'envelope',
    handle: (_req, ctx) => ok(ctx.data.categories.map((c) => ({ ...c, _sim: true }))),
  },
  {
    method: 'POST',
    path: '/content-library/generate',
    style: 'envelope',
    billable: true,
    insufficientStatus: 402,
    handle(req, ctx) {
      if (req.form) bad('body: file uploads are not accepted; send image fields as public http(s) URLs in JSON');
      const body = asBody(req.json);
      const templateId = body.template_id;
      if (templateId === undefined || templateId === null || templateId === '') bad('template_id: is required');
      if (typeof templateId !== 'string' || !UUID.test(templateId)) bad('template_id: must be a UUID');
      const webhookUrl = optionalWebhook(body, ctx, { httpsOnly: true });
      const projectIdIn = optionalProjectId(body);
      const template = ctx.data.templates.find((t) => t.id === templateId);
      if (!template) throw new SimHttpError(404, 'template not found');
      for (const [name, field] of Object.entries(template.require_fields)) {
        const v = body[name];
        if (v === undefined || v === null || v === '') bad(`${name}: is required by this template`);
        if (typeof v !== 'string') bad(`${name}: must be a string${field.type === 'image' ? ' (a public URL)' : ''}`);
        // Spec: image fields are public URLs. Types it does not show are played as media fields too.
        const text = field.type === 'input' || field.type === 'textarea';
        if (!text && !ctx.isPublicUrl(v)) bad(`${name}: must be a public http(s) URL`);
        if (field.max !== undefined && v.length > field.max) bad(`${name}: must be at most ${field.max} characters`);
      }
      const projectId = ctx.projects.resolve(req.account, projectIdIn);
      // Reference images: the template's image-type fields (what the platform fetches).
      const images = Object.values(template.require_fields).filter((f) => f.type === 'image').length;
      const price = simCharge(template.credit, images);
      ctx.charge(req.account, price, 402);
      const job = ctx.jobs.create({
        id: randomUUID(),
        kind: simJobOf('template_video'),
        account: req.account,
        projectId,
        media: 'video',
        creditsCharged: price,
        webhookUrl,
        meta: { templateId, jobUuid: randomUUID(), thumbnailUrl: ctx.mediaUrl('png') },
      });
      return ok({ db_id: job.id, project_id: projectId, _sim: true });
    },
  },
  {
    method: 'GET',
    path: '/content-library/status',
    style: 'envelope',
    handle(req, ctx) {
      const job = jobOr404(ctx, simJobOf('template_video'), req, 'video');
      const state = ctx.jobs.state(job);
      return ok({
        db_id: job.id,
        status: state,
        ...(state === 'completed' ? { url: job.outputs[0] } : {}),
        ...(job.outcome.kind === 'fail' && state === 'failed' ? { reason: job.outcome.reason } : {}),
        progress: state === 'processing' ? progressOf(job) : 100,
        _sim: true,
      });
    },
  },
];
