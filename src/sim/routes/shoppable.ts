/**
 * Shoppable ads (the platform spells the segment `shopable`). Insufficient credits answer 402.
 *
 * The spec shows neither the packs shape, the generate response nor the allowed durations, so the simulator
 * defines them:
 * - GET /shopable/packs → data `{categories: [{value, label, formats: string[], aspect_ratios: string[],
 *   durations: string[], credits: {image, video}, defaults: {format, aspect_ratio, duration}}]}`, credits as
 *   price texts with their unit word ("300 credits") per generation.
 * - generate → data `{id, status: 'processing', credits_charged}`.
 * - videos: `image_urls` 1-4 public URLs; `duration` a string from the category's `durations`.
 */

import { simJobOf } from '../../jobs/kinds/index.js';
import { asBody, type Body, bad, optionalString, requireString, requireStringArray } from '../check.js';
import { simCharge } from '../price-text.js';
import type { SimAccount, SimContext, SimPackCategory, SimRoute } from '../types.js';
import { jobOr404, ok, requirePublicUrl, videoStatus } from './common.js';

const MAX_VIDEO_IMAGES = 4;

function packFields(body: Body, ctx: SimContext): SimPackCategory {
  const category = requireString(body, 'category');
  const pack = ctx.data.packs.find((p) => p.value === category);
  if (!pack) bad(`category: unknown category "${category}"; see GET /shopable/packs`);
  const format = requireString(body, 'format');
  if (!pack.formats.includes(format)) bad(`format: must be one of ${pack.formats.join(', ')} for ${category}`);
  optionalString(body, 'context', { max: 2000 });
  const ratio = optionalString(body, 'aspect_ratio');
  if (ratio !== undefined && !pack.aspect_ratios.includes(ratio)) {
    bad(`aspect_ratio: must be one of ${pack.aspect_ratios.join(', ')} for ${category}`);
  }
  return pack;
}

function start(ctx: SimContext, account: SimAccount, kind: string, media: 'image' | 'video', price: number) {
  ctx.charge(account, price, 402);
  const job = ctx.jobs.create({ kind, account, media, creditsCharged: price });
  return ok({ id: job.id, status: 'processing', credits_charged: price, _sim: true });
}

export const shoppableRoutes: SimRoute[] = [
  {
    method: 'GET',
    path: '/shopable/packs',
    style: 'envelope',
    handle: (_req, ctx) => ok({ categories: ctx.data.packs, _sim: true }),
  },
  {
    method: 'POST',
    path: '/shopable/images',
    style: 'envelope',
    billable: true,
    insufficientStatus: 402,
    handle(req, ctx) {
      const body = asBody(req.json);
      const pack = packFields(body, ctx);
      requirePublicUrl(body, 'image_url', ctx);
      return start(ctx, req.account, simJobOf('shoppable_image'), 'image', simCharge(pack.credits.image, 0));
    },
  },
  {
    method: 'POST',
    path: '/shopable/videos',
    style: 'envelope',
    billable: true,
    insufficientStatus: 402,
    handle(req, ctx) {
      const body = asBody(req.json);
      const pack = packFields(body, ctx);
      const urls = requireStringArray(body, 'image_urls', { min: 1, max: MAX_VIDEO_IMAGES });
      urls.forEach((u, i) => {
        if (!ctx.isPublicUrl(u)) bad(`image_urls[${i}]: must be a public http(s) URL`);
      });
      if (body.duration === undefined || body.duration === null || body.duration === '') bad('duration: is required');
      if (typeof body.duration !== 'string') bad('duration: must be a string, e.g. "15"');
      if (!pack.durations.includes(body.duration)) {
        bad(`duration: must be one of ${pack.durations.join(', ')} for ${pack.value}`);
      }
      return start(ctx, req.account, simJobOf('shoppable_video'), 'video', simCharge(pack.credits.video, 0));
    },
  },
  {
    method: 'GET',
    path: '/shopable/images/status',
    style: 'envelope',
    handle: (req, ctx) => ok(videoStatus(ctx, jobOr404(ctx, simJobOf('shoppable_image'), req, 'image'))),
  },
  {
    method: 'GET',
    path: '/shopable/videos/status',
    style: 'envelope',
    handle: (req, ctx) => ok(videoStatus(ctx, jobOr404(ctx, simJobOf('shoppable_video'), req, 'video'))),
  },
];
