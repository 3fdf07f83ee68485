/**
 * Product-in-hand: three generate routes whose paths carry vendor names from the vendor map, one shared status
 * route. Insufficient credits answer 402 on all three (the spec lets each path pick 400 or 402).
 *
 * Conventions where the spec is silent:
 * - <vendorM>-human prices by audio length. For voice_url the length follows the audio-URL convention
 *   (public-url.ts); for script + voice_id text-to-speech it is estimated at 2.5 words per second (150 words a
 *   minute, ordinary speaking pace), rounded up.
 * - <vendorF> `model` defaults to `fast`: the spec shows no default, and the cheaper one never charges more
 *   than a client that omits it could expect. Clients should send it explicitly.
 */

import { simJobOf } from '../../jobs/kinds/index.js';
import { asBody, type Body, bad, optionalEnum, optionalString } from '../check.js';
import type { SimAccount, SimContext, SimRoute } from '../types.js';
import {
  checkAudioUrl,
  findVoice,
  jobOr404,
  ok,
  optionalProjectId,
  optionalPublicUrl,
  optionalWebhook,
  requirePublicUrl,
  videoStatus,
} from './common.js';

const WORDS_PER_SECOND = 2.5;
const FLAT_PRICE = 100;
const HUMAN_SHORT_PRICE = 100;
const HUMAN_LONG_PRICE = 200;
const HUMAN_SHORT_BELOW_S = 15;
const SCENE_PRICE = { fast: 100, pro: 200 } as const;

export function speechSeconds(script: string): number {
  const words = script.trim().split(/\s+/).filter(Boolean).length;
  return Math.ceil(words / WORDS_PER_SECOND);
}

/** Shared by the two audio-driven routes: image + (voice_url | script + voice_id). Returns audio seconds. */
function checkAudioDriven(body: Body, ctx: SimContext, account: SimAccount, maxAudioS: number) {
  requirePublicUrl(body, 'image_url', ctx);
  const voiceUrl = optionalString(body, 'voice_url');
  const script = optionalString(body, 'script');
  const voiceId = optionalString(body, 'voice_id');
  let seconds: number;
  if (voiceUrl) {
    seconds = checkAudioUrl('voice_url', voiceUrl, ctx, maxAudioS);
  } else {
    if (!script) bad('script: is required when voice_url is absent');
    if (!voiceId) bad('voice_id: is required when voice_url is absent');
    seconds = speechSeconds(script);
    if (seconds > maxAudioS) {
      bad(`script: about ${seconds} seconds of speech; the audio may be at most ${maxAudioS} seconds`);
    }
  }
  if (voiceId) findVoice(ctx, account, voiceId);
  return seconds;
}

function start(
  ctx: SimContext,
  account: SimAccount,
  body: Body,
  price: number,
  engine: string,
  meta: Record<string, unknown>,
) {
  const webhookUrl = optionalWebhook(body, ctx);
  const projectId = ctx.projects.resolve(account, optionalProjectId(body));
  ctx.charge(account, price, 402);
  const job = ctx.jobs.create({
    kind: simJobOf('product_video'),
    account,
    projectId,
    media: 'video',
    creditsCharged: price,
    webhookUrl,
    meta: { engine, ...meta },
  });
  return ok({ id: job.id, project_id: projectId, _sim: true });
}

export const productRoutes: SimRoute[] = [
  {
    method: 'POST',
    path: (ctx) => `/product-in-hand/${ctx.vendors.L ?? 'vendorl'}-v2/generate`,
    style: 'envelope',
    billable: true,
    insufficientStatus: 402,
    handle(req, ctx) {
      const body = asBody(req.json);
      const seconds = checkAudioDriven(body, ctx, req.account, 90);
      return start(ctx, req.account, body, FLAT_PRICE, 'v2', { audioSeconds: seconds });
    },
  },
  {
    method: 'POST',
    path: (ctx) => `/product-in-hand/${ctx.vendors.M ?? 'vendorm'}-human/generate`,
    style: 'envelope',
    billable: true,
    insufficientStatus: 402,
    handle(req, ctx) {
      const body = asBody(req.json);
      const seconds = checkAudioDriven(body, ctx, req.account, 30);
      const price = seconds < HUMAN_SHORT_BELOW_S ? HUMAN_SHORT_PRICE : HUMAN_LONG_PRICE;
      return start(ctx, req.account, body, price, 'human', { audioSeconds: seconds });
    },
  },
  {
    method: 'POST',
    path: (ctx) => `/product-in-hand/${ctx.vendors.F ?? 'vendorf'}/generate`,
    style: 'envelope',
    billable: true,
    insufficientStatus: 402,
    handle(req, ctx) {
      const body = asBody(req.json);
      requirePublicUrl(body, 'image_url', ctx);
      const scenes = body.scenes;
      if (scenes === undefined || scenes === null) bad('scenes: is required');
      if (!Array.isArray(scenes)) bad('scenes: must be an array');
      if (scenes.length < 1 || scenes.length > 4) bad('scenes: must have 1 to 4 items');
      scenes.forEach((scene: unknown, i: number) => {
        if (!scene || typeof scene !== 'object' || Array.isArray(scene)) bad(`scenes[${i}]: must be an object`);
        for (const f of ['script', 'description'] as const) {
          const v = (scene as Body)[f];
          if (typeof v !== 'string' || v.trim() === '') bad(`scenes[${i}].${f}: is required and must be a string`);
        }
      });
      const model = optionalEnum(body, 'model', ['pro', 'fast'] as const) ?? 'fast';
      const voiceId = optionalString(body, 'voice_id');
      if (voiceId) findVoice(ctx, req.account, voiceId);
      optionalPublicUrl(body, 'end_image_url', ctx);
      const price = scenes.length * SCENE_PRICE[model];
      return start(ctx, req.account, body, price, 'scenes', { model, scenes: scenes.length });
    },
  },
  {
    method: 'GET',
    path: '/product-in-hand/status',
    style: 'envelope',
    handle: (req, ctx) => ok(videoStatus(ctx, jobOr404(ctx, simJobOf('product_video'), req, 'video'))),
  },
];
