/**
 * Reusable zod fields (style.md 2.1): one definition per platform field that several tools share, so the
 * rule and the wording stay the same everywhere. Ranges live here, not in descriptions: tools/list writes each
 * bound into its field's description from the schema itself (src/protocol/portable-schema.ts `boundText`).
 */
import { z } from 'zod';

/** Spec, POST /video/generate: "at most 1,500 characters" (the platform default; templates may set lower). */
export const VOICE_SCRIPT_MAX = 1500;

export const avatarId = () => z.string().trim().min(1).max(256).describe('avatar id from list_avatars');

/** The voice's `id` from list_voices; the spec: "the `id` from the voice list, not `voiceId`". */
export const voiceId = () => z.string().trim().min(1).max(256).describe('list_voices id, not voiceId');

export const projectId = () => z.string().trim().min(1).max(256).describe('existing project');

export const voiceScript = (max = VOICE_SCRIPT_MAX) =>
  // Trimmed: surrounding spaces are noise, and the request (what consent binds) carries the trimmed text.
  z.string().trim().min(1).max(max).describe('text the actor speaks');

/** 0-1 ratio, as the spec gives for stability, similarity_boost and style. */
const unit = (what: string) => z.number().min(0).max(1).describe(what);

/**
 * Speed: the spec gives only "speech speed multiplier; default 1". 0.5-2 is our assumption (the range common
 * TTS engines accept), so an obviously wrong value is caught locally instead of costing a failed job.
 */
export const SPEED_RANGE = { min: 0.5, max: 2 } as const;

/**
 * voice_settings: the spec says "supply the full object when overriding defaults", so all five are required
 * when the object is given (a partial object would silently reset the others on the platform).
 */
export const voiceSettings = () =>
  z
    .strictObject({
      stability: unit('default 0.75'),
      similarity_boost: unit('default 0.4'),
      style: unit('default 0'),
      use_speaker_boost: z.boolean().describe('default true'),
      speed: z.number().min(SPEED_RANGE.min).max(SPEED_RANGE.max).describe('speed, default 1'),
    })
    .describe('all five');

/** list_* filters: the platform matches these case-insensitively. */
export const genderFilter = () => z.string().trim().min(1).max(32).optional().describe('filter, e.g. Female or Male');
export const languageFilter = () =>
  z.string().trim().min(1).max(64).optional().describe('language name filter, e.g. English');

/** Page controls for list tools that trim long lists to save the model's context. */
export const limitField = (max = 200, dflt = 50) =>
  z.number().int().min(1).max(max).default(dflt).describe('maximum items to return');
export const offsetField = () => z.number().int().min(0).default(0).describe('items to skip');

/** A pack value from list_shoppable_packs (category, format): required, so never empty; ids are short. */
export const packValue = (what: string) => z.string().min(1).max(256).describe(what);

/**
 * Shoppable `context` ("creative direction"): the spec gives no length. 2,000 characters is our bound, the
 * platform's own prompt limit on most enterprise models (1-2000), so a runaway value (a pasted page) is a free
 * field error instead of a request the platform may refuse or bill.
 */
export const SHOPPABLE_CONTEXT_MAX = 2000;
export const shoppableContext = () => z.string().max(SHOPPABLE_CONTEXT_MAX).optional().describe('creative direction');
