/**
 * zod *response* schemas of the platform (request shapes live with the tools). All are loose
 * (`z.looseObject`): the spec says clients must tolerate additional response fields.
 */
import { z } from 'zod';

const makeEnvelope = <T extends z.ZodType>(data: T) =>
  z.looseObject({
    status: z.boolean(),
    // Tolerate `message: null`: the spec says optional, and a null must not fail an otherwise good answer.
    message: z
      .string()
      .nullish()
      .transform((v) => v ?? undefined),
    data,
  });

/**
 * One envelope schema per data schema, built once. Building it per response (as every request did) cost
 * more than the parse: zod 4 constructs the object schema, then on its first parse compiles a fast-path
 * parser with `new Function`, so every status read made and threw away a compiled function
 * (~0.25 ms per get_job in a CPU profile, and steady code-space churn under 500 polled jobs).
 */
const envelopes = new WeakMap<z.ZodType, z.ZodType>();

/** Envelope: `{status: boolean, message?, data}`. */
export function envelope<T extends z.ZodType>(data: T): ReturnType<typeof makeEnvelope<T>> {
  let schema = envelopes.get(data) as ReturnType<typeof makeEnvelope<T>> | undefined;
  if (!schema) {
    schema = makeEnvelope(data);
    envelopes.set(data, schema);
  }
  return schema;
}

const str = z.string();
const optStr = z
  .string()
  .nullish()
  .transform((v) => v ?? undefined);
/** Job states arrive as strings ("processing") on most endpoints, integers (0/1/2) on enterprise ones. */
const jobState = z.union([z.string(), z.number()]);

export const AvatarSchema = z.looseObject({
  id: str,
  name: str,
  thumbnail: optStr,
  gender: optStr,
  skin: optStr,
  age_range: optStr,
  type: optStr,
});
export type Avatar = z.infer<typeof AvatarSchema>;

export const VoiceSchema = z.looseObject({
  id: str,
  name: str,
  language: optStr,
  gender: optStr,
  voiceId: optStr,
  previewUrl: optStr,
  accent: optStr,
  country: optStr,
  isCustom: z.boolean().optional(),
});
export type Voice = z.infer<typeof VoiceSchema>;

/** `{id}` from the generate routes of actor / product / shoppable endpoints. */
export const JobIdSchema = z.looseObject({ id: z.union([str, z.number()]).transform(String) });
export type JobId = z.infer<typeof JobIdSchema>;

/** Normalised video-job status (actor, product-in-hand, shoppable, family). */
export const VideoStatusSchema = z.looseObject({
  id: optStr,
  status: jobState,
  url: optStr,
  reason: optStr,
});
export type VideoStatus = z.infer<typeof VideoStatusSchema>;

export const CustomAvatarResultSchema = z.looseObject({
  status: z.union([z.boolean(), z.string()]).optional(),
  message: optStr,
  avatar_id: str,
  thumbnail_url: optStr,
  audio_url: optStr,
  selected_voice_id: optStr,
});
export type CustomAvatarResult = z.infer<typeof CustomAvatarResultSchema>;

export const TemplateFieldSchema = z.looseObject({
  type: str,
  label: optStr,
  max: z
    .number()
    .nullish()
    .transform((v) => v ?? undefined),
});
export const TemplateSchema = z.looseObject({
  id: str,
  title: str,
  credit: z.union([str, z.number()]).transform(String),
  category: z.array(str).default([]),
  require_fields: z.record(str, TemplateFieldSchema).default({}),
});
export type Template = z.infer<typeof TemplateSchema>;

export const CategorySchema = z.looseObject({ label: str, value: str });
export type Category = z.infer<typeof CategorySchema>;

export const LibrarySubmitSchema = z.looseObject({ db_id: z.union([str, z.number()]).transform(String) });
export const LibraryStatusSchema = z.looseObject({
  id: optStr,
  db_id: optStr,
  status: jobState,
  url: optStr,
  reason: optStr,
});

/** Shoppable packs: the spec does not show the shape, so everything is kept and read defensively. */
export const PacksSchema = z.unknown();

export const GestureSubmitSchema = z.looseObject({
  id: z.union([str, z.number()]).transform(String),
  project_id: optStr,
  status: jobState.optional(),
  credits_charged: z
    .number()
    .nullish()
    .transform((v) => v ?? undefined),
});
export const GestureStatusSchema = z.looseObject({
  id: optStr,
  project_id: optStr,
  status: jobState,
  video_url: optStr,
  reason: optStr,
});

export const CatalogEntrySchema = z.looseObject({
  model: str,
  media: str,
  credits: z.union([str, z.number()]).transform(String),
});
export type CatalogEntry = z.infer<typeof CatalogEntrySchema>;
export const CatalogSchema = z.looseObject({ models: z.array(CatalogEntrySchema) });

/** Enterprise acceptance (flat, no envelope). */
export const EnterpriseSubmitSchema = z.looseObject({
  request_id: str,
  project_id: optStr,
  media: optStr,
  model: optStr,
  status: jobState.optional(),
  message: optStr,
});
export type EnterpriseSubmit = z.infer<typeof EnterpriseSubmitSchema>;

/** Enterprise status (flat): integer 0/1/2 or a string; images in output.output_link, videos in video_url. */
export const EnterpriseStatusSchema = z.looseObject({
  request_id: optStr,
  media: optStr,
  status: jobState,
  mode: optStr,
  project_id: optStr,
  output: z
    .looseObject({ output_link: z.array(str).nullish() })
    .nullish()
    .transform((v) => v ?? undefined),
  video_url: optStr,
  error: z.unknown().optional(),
  reason: optStr,
  created_at: optStr,
  updated_at: optStr,
});
export type EnterpriseStatus = z.infer<typeof EnterpriseStatusSchema>;

export const FamilySubmitSchema = z.looseObject({
  id: z.union([str, z.number()]).transform(String),
  project_id: optStr,
  model: optStr,
  status: jobState.optional(),
  estimated_credits: z
    .number()
    .nullish()
    .transform((v) => v ?? undefined),
  credits_charged: z
    .number()
    .nullish()
    .transform((v) => v ?? undefined),
});
export type FamilySubmit = z.infer<typeof FamilySubmitSchema>;

export const UpscaleQuoteSchema = z.looseObject({
  success: z.boolean().optional(),
  videoId: optStr,
  modelFamily: optStr,
  model: optStr,
  upscaleFactor: z.number().optional(),
  metadata: z
    .looseObject({
      width: z.number().optional(),
      height: z.number().optional(),
      duration: z.number().optional(),
      fps: z.number().optional(),
      frames: z.number().optional(),
    })
    .optional(),
  quote: z.looseObject({ credits: z.number() }),
});
export type UpscaleQuote = z.infer<typeof UpscaleQuoteSchema>;

export const UpscaleAttemptSchema = z.looseObject({
  id: str,
  billing_id: str,
  project_id: optStr,
  status: str,
  video_url: optStr,
  credits_charged: z
    .number()
    .nullish()
    .transform((v) => v ?? undefined),
  credits_refunded: z
    .number()
    .nullish()
    .transform((v) => v ?? undefined),
  error: z
    .string()
    .nullish()
    .transform((v) => v ?? undefined),
});
export type UpscaleAttempt = z.infer<typeof UpscaleAttemptSchema>;
