/**
 * The simulator's internal contracts: routes are plain objects grouped by API area (`routes/<area>.ts`),
 * dispatched by `server.ts`, which does everything cross-cutting once: auth, `x-request-id`, envelopes,
 * extra unknown response fields, faults, the request log, credit checks.
 */
import type { VendorMap } from '../config.js';

export interface SimAccount {
  key: string;
  /** Balance in displayed credits. */
  credits: number;
  /** `paid` may POST generation jobs; `free` gets 403 on them; `inactive` gets 401 everywhere. */
  subscription: 'paid' | 'free' | 'inactive';
  features: { customAvatar: boolean; dedicatedFamily: boolean };
}

export type FormValue = string | { filename: string; contentType: string; size: number; bytes: Uint8Array };

export interface SimRequest {
  method: 'GET' | 'POST';
  /** Path after the base prefix, e.g. `/video/generate`. */
  path: string;
  /** Named groups from a RegExp route path. */
  params: Record<string, string>;
  query: URLSearchParams;
  headers: Record<string, string>;
  /** Parsed JSON body (POST with application/json). */
  json: unknown;
  /** Parsed multipart body (POST with multipart/form-data). */
  form: Map<string, FormValue> | undefined;
  account: SimAccount;
  requestId: string;
}

/**
 * What a handler returns. Envelope routes return the `data` payload as `body` and `server.ts` wraps it in
 * `{status: true, message: 'ok', data}` (a body that already looks like an envelope — boolean `status` and a
 * `data` key — is sent as it is). Flat routes return the bare object.
 */
export interface SimResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Throw from a handler to answer with an error; `server.ts` shapes the body (envelope or flat). */
export class SimHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface SimRoute {
  method: 'GET' | 'POST';
  /** Exact path, or a RegExp with named groups (e.g. `/enterprise/status/(?<requestId>[^/]+)`). */
  path: string | RegExp | ((ctx: SimContext) => string | RegExp);
  /** Envelope (`{status, message, data}`) or flat (enterprise). Decides the error body shape too. */
  style: 'envelope' | 'flat';
  /** A generation POST: needs a paid subscription and a positive balance; starts a job. */
  billable?: boolean;
  /** Billable routes: the status answered when the balance is not positive (spec: 400 on some paths, 402 on others). Default 402. */
  insufficientStatus?: 400 | 402;
  handle(req: SimRequest, ctx: SimContext): SimResponse | Promise<SimResponse>;
}

export type JobOutcome = { kind: 'complete' } | { kind: 'fail'; reason: string };

/** Scripted behaviour for the next job(s) created (tests steer jobs with this). */
export interface JobScript {
  durationMs?: number;
  outcome?: JobOutcome;
  /** Enterprise: number of status reads that say "1 (completed)" with no output URL yet. */
  outputLagPolls?: number;
  /**
   * Odd-id knob: the platform id the job gets instead of a random one. Any string, as a real platform could
   * return: over-long, lone surrogates, control characters, ':' or '%'. The JSON answer carries it exactly
   * (lone surrogates as `\uD800` escapes); status reads find it by the id as it arrives over UTF-8, where a
   * lone surrogate has become U+FFFD. Not for upscale, whose ids are the video's and the attempt's.
   */
  id?: string;
}

export interface SimJob {
  id: string;
  /** Simulator job kind: the registry's `sim.job` of one of our kinds (`simJobOf`, src/jobs/kinds/). */
  kind: string;
  accountKey: string;
  projectId: string;
  createdAt: number;
  finishAt: number;
  outcome: JobOutcome;
  /** Output media URLs, filled when it completes. */
  outputs: string[];
  /** Media of the outputs. */
  media: 'video' | 'image';
  creditsCharged: number;
  /**
   * Area data kept by the route (model, db_id, template, upscale attempt fields…). The engine reads one key:
   * `ownedVideoType` (string, or null to opt out) overrides the `video_type` a finished video job is registered
   * under in `ownedVideos` (defaults per kind are in `jobs.ts`).
   */
  meta: Record<string, unknown>;
  /** Incremented by status routes that need it (enterprise output lag); the engine never touches it. */
  statusReads: number;
  outputLagPolls: number;
  webhookUrl?: string;
}

export interface JobEngine {
  create(init: {
    /** Fixed id (content library uses UUIDs); random otherwise. */
    id?: string;
    kind: string;
    account: SimAccount;
    projectId?: string;
    media: 'video' | 'image';
    creditsCharged: number;
    outputCount?: number;
    meta?: Record<string, unknown>;
    webhookUrl?: string;
  }): SimJob;
  /** The job with its state as of now (processing until `finishAt`); undefined if unknown or not the account's. */
  get(kind: string, id: string, account: SimAccount): SimJob | undefined;
  /** Current state as a string: processing | completed | failed. */
  state(job: SimJob): 'processing' | 'completed' | 'failed';
  all(): SimJob[];
}

/** An owned video that upscale can probe (seeded, plus every finished video job). */
export interface OwnedVideo {
  videoId: string;
  projectId: string;
  videoType: string;
  accountKey: string;
  url: string;
  width: number;
  height: number;
  durationS: number;
  fps: number;
}

export interface SimContext {
  vendors: VendorMap;
  jobs: JobEngine;
  /** Charges (or throws the 400/402 insufficient-credits error for this path). */
  charge(account: SimAccount, credits: number, insufficientStatus: 400 | 402): void;
  refund(account: SimAccount, credits: number): void;
  /** Absolute URL of a media file the simulator serves (`png`, `mp4` or `mp3`); `name` defaults to a random one. */
  mediaUrl(kind: 'png' | 'mp4' | 'mp3', name?: string): string;
  /** Is this a URL the platform would accept as a public media URL? (Its own media URLs count as public.) */
  isPublicUrl(url: string, opts?: { allowDataUri?: boolean }): boolean;
  /**
   * Is this an acceptable `webhook_url`? A public http(s) URL (`httpsOnly`: https only). With the
   * simulator option `allowLoopbackWebhooks`, http(s) URLs on 127.0.0.1 / localhost / [::1] pass too (tests).
   */
  isWebhookUrl(url: string, opts?: { httpsOnly?: boolean }): boolean;
  /** Projects per account (project_id fields). */
  projects: ProjectRegistry;
  /** Catalog data (seeded) and per-account custom avatars and voices. */
  data: SimData;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  ownedVideos: Map<string, OwnedVideo>;
  /** POST a JSON callback (content-library webhooks); failures are ignored, as delivery is not guaranteed. */
  sendWebhook(url: string, payload: unknown): void;
  /** Short delay for slow endpoints (upscale quote probing), scaled by the timing profile. */
  slowOpMs: number;
}

export interface ProjectRegistry {
  /**
   * The project to use: `projectId` when it is one of the account's projects (throws 404 "project not found"
   * otherwise), or a new project when `projectId` is undefined.
   */
  resolve(account: SimAccount, projectId: string | undefined): string;
  /** Registers a project for an account (seeding). */
  add(accountKey: string, projectId: string): void;
  owns(account: SimAccount, projectId: string): boolean;
}

/** Items carry an extra `_sim: true` so clients prove they tolerate unknown fields. */
export interface SimAvatar {
  id: string;
  name: string;
  thumbnail: string;
  gender: string;
  skin: string;
  age_range: string;
  type: string;
  /** Voice used when a video names neither voice_url nor voice_id. */
  default_voice_id: string;
  _sim: true;
}

export interface SimVoice {
  id: string;
  name: string;
  language: string;
  gender: string;
  voiceId: string;
  previewUrl: string;
  templateUrl?: string;
  thumbnail?: string;
  accent: string;
  country: string;
  isCustom: boolean;
  _sim: true;
}

export interface SimTemplateField {
  type: 'input' | 'image' | 'textarea';
  label: string;
  max?: number;
}

export interface SimTemplate {
  id: string;
  title: string;
  credit: string;
  category: string[];
  require_fields: Record<string, SimTemplateField>;
  thumbnail: string;
  _sim: true;
}

/** Shoppable pack category; the spec does not show the packs shape, so this one is the simulator's own. */
export interface SimPackCategory {
  value: string;
  label: string;
  formats: string[];
  aspect_ratios: string[];
  durations: string[];
  /** Price texts per generation, with their unit word ("300 credits"; src/sim/price-text.ts). */
  credits: { image: string; video: string };
  defaults: { format: string; aspect_ratio: string; duration: string };
}

export interface SimData {
  avatars: SimAvatar[];
  voices: SimVoice[];
  templates: SimTemplate[];
  categories: { label: string; value: string }[];
  packs: SimPackCategory[];
  /** Per account key: avatars made with POST /custom-avatar/generate. */
  customAvatars: Map<string, SimAvatar[]>;
  /** Per account key: custom voices (isCustom true). */
  customVoices: Map<string, SimVoice[]>;
}
