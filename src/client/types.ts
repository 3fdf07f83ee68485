/**
 * The platform client's public interface: one thin area per API area. Tools and resources call only
 * this; only `http.ts` touches the network. Request bodies are plain objects built by the tools
 * (already validated); the areas add nothing but the route.
 */
import type {
  Avatar,
  CatalogEntry,
  Category,
  CustomAvatarResult,
  EnterpriseStatus,
  EnterpriseSubmit,
  FamilySubmit,
  JobId,
  Template,
  UpscaleAttempt,
  UpscaleQuote,
  VideoStatus,
  Voice,
} from './schemas.js';

/** What every call returns: the parsed data plus the `x-request-id` of the response. */
export interface ApiResult<T> {
  data: T;
  requestId: string | undefined;
}

export type Json = Record<string, unknown>;

/** A multipart media part: a public URL (sent as a string field) or local bytes (sent as a file). */
export type MediaPart = { url: string } | { bytes: Uint8Array; filename: string; contentType: string };

export interface CallOptions {
  signal?: AbortSignal;
}

export type ProductEngine = 'v2' | 'human' | 'scenes';

export interface PlatformClient {
  avatars: {
    list(q?: { gender?: string }, o?: CallOptions): Promise<ApiResult<Avatar[]>>;
    /** POST /custom-avatar/generate (multipart). Billable: never retried. */
    createCustom(
      parts: { image: MediaPart; voice?: MediaPart },
      o?: CallOptions,
    ): Promise<ApiResult<CustomAvatarResult>>;
  };
  voices: {
    list(q?: { language?: string; gender?: string }, o?: CallOptions): Promise<ApiResult<Voice[]>>;
  };
  actors: {
    /** POST /video/generate */
    generate(body: Json, o?: CallOptions): Promise<ApiResult<JobId>>;
    /** GET /video/status?id */
    status(id: string, o?: CallOptions): Promise<ApiResult<VideoStatus>>;
  };
  products: {
    /** POST /product-in-hand/{<vendorL>-v2 | <vendorM>-human | <vendorF>}/generate */
    generate(engine: ProductEngine, body: Json, o?: CallOptions): Promise<ApiResult<JobId>>;
    status(id: string, o?: CallOptions): Promise<ApiResult<VideoStatus>>;
  };
  ads: {
    /** GET /shopable/packs: shape not shown in the spec, returned as-is. */
    packs(o?: CallOptions): Promise<ApiResult<unknown>>;
    createImage(body: Json, o?: CallOptions): Promise<ApiResult<JobId>>;
    createVideo(body: Json, o?: CallOptions): Promise<ApiResult<JobId>>;
    imageStatus(id: string, o?: CallOptions): Promise<ApiResult<VideoStatus>>;
    videoStatus(id: string, o?: CallOptions): Promise<ApiResult<VideoStatus>>;
  };
  library: {
    templates(q?: { category?: string }, o?: CallOptions): Promise<ApiResult<Template[]>>;
    categories(o?: CallOptions): Promise<ApiResult<Category[]>>;
    generate(body: Json, o?: CallOptions): Promise<ApiResult<{ db_id: string }>>;
    status(dbId: string, o?: CallOptions): Promise<ApiResult<VideoStatus & { db_id?: string | undefined }>>;
  };
  gestures: {
    generate(
      body: Json,
      o?: CallOptions,
    ): Promise<ApiResult<{ id: string; project_id?: string | undefined; credits_charged?: number | undefined }>>;
    status(
      id: string,
      o?: CallOptions,
    ): Promise<
      ApiResult<{
        id?: string | undefined;
        project_id?: string | undefined;
        status: string | number;
        video_url?: string | undefined;
        reason?: string | undefined;
      }>
    >;
  };
  enterprise: {
    models(o?: CallOptions): Promise<ApiResult<CatalogEntry[]>>;
    generate(body: Json, o?: CallOptions): Promise<ApiResult<EnterpriseSubmit>>;
    status(
      requestId: string,
      media: 'image' | 'video' | undefined,
      o?: CallOptions,
    ): Promise<ApiResult<EnterpriseStatus>>;
  };
  family: {
    /** POST /<vendorC>/generate */
    generate(body: Json, o?: CallOptions): Promise<ApiResult<FamilySubmit>>;
    status(id: string, o?: CallOptions): Promise<ApiResult<VideoStatus>>;
  };
  upscale: {
    /** Slow: up to 370 s on the platform; 420 s client timeout. Not billable. */
    quote(body: Json, o?: CallOptions): Promise<ApiResult<UpscaleQuote>>;
    generate(body: Json, o?: CallOptions): Promise<ApiResult<UpscaleAttempt>>;
    status(
      q: { video_id: string; project_id: string; video_type: string; billing_id: string },
      o?: CallOptions,
    ): Promise<ApiResult<UpscaleAttempt>>;
  };
}
