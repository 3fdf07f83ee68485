/** Helpers shared by the envelope areas: URL fields, voices and avatars of an account, status payloads. */
import { type Body, bad, optionalString, requireString } from '../check.js';
import { audioDurationS, isAccessible } from '../public-url.js';
import {
  type SimAccount,
  type SimAvatar,
  type SimContext,
  SimHttpError,
  type SimJob,
  type SimRequest,
  type SimVoice,
} from '../types.js';

export function requirePublicUrl(body: Body, field: string, ctx: SimContext): string {
  const v = requireString(body, field);
  if (!ctx.isPublicUrl(v)) bad(`${field}: must be a public http(s) URL`);
  return v;
}

export function optionalPublicUrl(body: Body, field: string, ctx: SimContext): string | undefined {
  const v = optionalString(body, field);
  if (v === undefined || v === '') return undefined;
  if (!ctx.isPublicUrl(v)) bad(`${field}: must be a public http(s) URL`);
  return v;
}

/** An audio URL: public, accessible and at most `maxSeconds` long (length by the convention in public-url.ts). */
export function checkAudioUrl(field: string, url: string, ctx: SimContext, maxSeconds: number): number {
  if (!ctx.isPublicUrl(url)) bad(`${field}: must be a public http(s) URL`);
  if (!isAccessible(url)) bad(`${field}: is not accessible`);
  const seconds = audioDurationS(url);
  if (seconds > maxSeconds) bad(`${field}: audio is ${seconds} seconds long; at most ${maxSeconds} seconds allowed`);
  return seconds;
}

export function optionalWebhook(body: Body, ctx: SimContext, opts: { httpsOnly?: boolean } = {}): string | undefined {
  const v = optionalString(body, 'webhook_url');
  if (v === undefined || v === '') return undefined;
  if (!ctx.isWebhookUrl(v, opts)) bad(`webhook_url: must be a public ${opts.httpsOnly ? 'HTTPS' : 'http(s)'} URL`);
  return v;
}

export function optionalProjectId(body: Body): string | undefined {
  const v = optionalString(body, 'project_id', { max: 256 });
  return v === '' ? undefined : v;
}

export function voicesOf(ctx: SimContext, account: SimAccount): SimVoice[] {
  return [...ctx.data.voices, ...(ctx.data.customVoices.get(account.key) ?? [])];
}

export function avatarsOf(ctx: SimContext, account: SimAccount): SimAvatar[] {
  return [...ctx.data.avatars, ...(ctx.data.customAvatars.get(account.key) ?? [])];
}

/** voice_id must be a voice's `id`; its `voiceId` is a different identifier and is not found. */
export function findVoice(ctx: SimContext, account: SimAccount, id: string): SimVoice {
  const voice = voicesOf(ctx, account).find((v) => v.id === id);
  if (!voice) throw new SimHttpError(404, 'voice not found');
  return voice;
}

export function requireQueryId(req: SimRequest, name = 'id'): string {
  const id = req.query.get(name);
  if (!id) bad(`${name}: is required`);
  return id;
}

export function jobOr404(ctx: SimContext, kind: string, req: SimRequest, what = 'job'): SimJob {
  const job = ctx.jobs.get(kind, requireQueryId(req), req.account);
  if (!job) throw new SimHttpError(404, `${what} not found`);
  return job;
}

/** The normalised status payload of actor, product-in-hand and shoppable jobs. */
export function videoStatus(ctx: SimContext, job: SimJob): Record<string, unknown> {
  const state = ctx.jobs.state(job);
  return {
    id: job.id,
    status: state,
    ...(state === 'completed' ? { url: job.outputs[0] } : {}),
    ...(state === 'failed' && job.outcome.kind === 'fail' ? { reason: job.outcome.reason } : {}),
    progress: state === 'processing' ? progressOf(job) : 100,
    _sim: true,
  };
}

/** An extra field clients must tolerate; roughly honest, too. */
export function progressOf(job: SimJob): number {
  const total = Math.max(1, job.finishAt - job.createdAt);
  return Math.min(99, Math.floor(((Date.now() - job.createdAt) / total) * 100));
}

export const ok = (body: unknown) => ({ status: 200, body });
