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
  handle(req: SimRequest, ctx: SimContext): SimResponse | Promise<SimResponse>;
}

export type JobOutcome = { kind: 'complete' } | { kind: 'fail'; reason: string };

/** Scripted behaviour for the next job(s) created (tests steer jobs with this). */
export interface JobScript {
  durationMs?: number;
  outcome?: JobOutcome;
  /** Enterprise: number of status reads that say "1 (completed)" with no output URL yet. */
  outputLagPolls?: number;
}

export interface SimJob {
  id: string;
  /** Area-specific kind: 'actor', 'product', 'shoppable_image', 'shoppable_video', 'library', 'gesture', 'enterprise', 'family', 'upscale'. */
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
  /** Area data kept by the route (model, db_id, template, upscale attempt fields…). */
  meta: Record<string, unknown>;
  statusReads: number;
  outputLagPolls: number;
  webhookUrl?: string;
}

export interface JobEngine {
  create(init: {
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
  /** Absolute URL of a media file the simulator serves (`png` or `mp4`). */
  mediaUrl(kind: 'png' | 'mp4' | 'mp3'): string;
  /** Is this a URL the platform would accept as a public media URL? (Its own media URLs count as public.) */
  isPublicUrl(url: string, opts?: { allowDataUri?: boolean }): boolean;
  ownedVideos: Map<string, OwnedVideo>;
  /** POST a JSON callback (content-library webhooks); failures are ignored, as delivery is not guaranteed. */
  sendWebhook(url: string, payload: unknown): void;
  /** Short delay for slow endpoints (upscale quote probing), scaled by the timing profile. */
  slowOpMs: number;
}
