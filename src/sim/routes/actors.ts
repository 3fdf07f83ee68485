/**
 * Talking-actor video: POST /video/generate and GET /video/status.
 * Insufficient credits answer 402 here (the spec lets each generation path pick 400 or 402).
 */

import { simJobOf } from '../../jobs/kinds/index.js';
import { asBody, type Body, bad, optionalString, requireString } from '../check.js';
import { type SimContext, SimHttpError, type SimRoute } from '../types.js';
import { avatarsOf, checkAudioUrl, findVoice, jobOr404, ok, optionalWebhook, videoStatus } from './common.js';

const PRICE = 100;
const MAX_SCRIPT = 1500;
const MAX_AUDIO_S = 120;
/**
 * voice_settings.speed: the spec only says "speech speed multiplier; default 1". 0.5-2 is the range speech
 * engines commonly accept; anything outside it is rejected rather than silently clamped.
 */
const SPEED_RANGE = [0.5, 2] as const;
const UNIT_FIELDS = ['stability', 'similarity_boost', 'style'] as const;

/**
 * "Supply the full object when overriding defaults" is read strictly: when voice_settings is sent, all five
 * fields must be present (a partial object would silently reset the others to defaults on the platform).
 */
function checkVoiceSettings(body: Body): void {
  const vs = body.voice_settings;
  if (vs === undefined || vs === null) return;
  if (typeof vs !== 'object' || Array.isArray(vs)) bad('voice_settings: must be an object');
  const s = vs as Body;
  for (const f of [...UNIT_FIELDS, 'use_speaker_boost', 'speed']) {
    if (s[f] === undefined || s[f] === null) {
      bad(`voice_settings.${f}: is required when voice_settings is given (supply the full object)`);
    }
  }
  for (const f of UNIT_FIELDS) {
    const v = s[f];
    if (typeof v !== 'number' || !Number.isFinite(v)) bad(`voice_settings.${f}: must be a number`);
    if (v < 0 || v > 1) bad(`voice_settings.${f}: must be between 0 and 1`);
  }
  if (typeof s.use_speaker_boost !== 'boolean') bad('voice_settings.use_speaker_boost: must be a boolean');
  const speed = s.speed;
  if (typeof speed !== 'number' || !Number.isFinite(speed)) bad('voice_settings.speed: must be a number');
  if (speed < SPEED_RANGE[0] || speed > SPEED_RANGE[1]) {
    bad(`voice_settings.speed: must be between ${SPEED_RANGE[0]} and ${SPEED_RANGE[1]}`);
  }
}

function generate(body: Body, ctx: SimContext, account: Parameters<SimContext['charge']>[0]) {
  const avatarId = requireString(body, 'avatar_id');
  const script = requireString(body, 'voice_script', { max: MAX_SCRIPT });
  const videoName = optionalString(body, 'video_name', { max: 255 }) || 'API Generated Video';
  const voiceUrl = optionalString(body, 'voice_url');
  if (voiceUrl) checkAudioUrl('voice_url', voiceUrl, ctx, MAX_AUDIO_S);
  const voiceId = optionalString(body, 'voice_id');
  checkVoiceSettings(body);
  const webhookUrl = optionalWebhook(body, ctx);

  const avatar = avatarsOf(ctx, account).find((a) => a.id === avatarId);
  if (!avatar) throw new SimHttpError(404, 'avatar not found');
  // Priority: voice_url, then voice_id, then the avatar's default voice. A named voice must exist either way.
  const voice = voiceId ? findVoice(ctx, account, voiceId) : undefined;
  const audioSource = voiceUrl ? 'voice_url' : voice ? 'voice_id' : 'avatar_default';

  ctx.charge(account, PRICE, 402);
  const job = ctx.jobs.create({
    kind: simJobOf('actor_video'),
    account,
    media: 'video',
    creditsCharged: PRICE,
    webhookUrl,
    meta: {
      videoName,
      avatarId,
      audioSource,
      voiceId: voice?.id ?? avatar.default_voice_id,
      scriptLength: script.length,
    },
  });
  return { id: job.id, _sim: true };
}

export const actorRoutes: SimRoute[] = [
  {
    method: 'POST',
    path: '/video/generate',
    style: 'envelope',
    billable: true,
    insufficientStatus: 402,
    handle: (req, ctx) => ok(generate(asBody(req.json), ctx, req.account)),
  },
  {
    method: 'GET',
    path: '/video/status',
    style: 'envelope',
    handle: (req, ctx) => ok(videoStatus(ctx, jobOr404(ctx, simJobOf('actor_video'), req, 'video'))),
  },
];
