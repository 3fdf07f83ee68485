/**
 * Reading GET /shopable/packs. The spec says only that it "returns categories, allowed formats per category
 * and defaults for generate calls"; the shape is not shown. So the reader accepts the plausible shapes and
 * keeps what it can recognise:
 *   - a list of category objects (`[{value|category|id|name|key|slug, label?, formats, durations?, …}]`);
 *   - an object wrapping that list (`{categories|packs|items|data: […]}`), with optional top-level
 *     `defaults` / `durations` / `formats` / `aspect_ratios` / `credits` that apply to every category;
 *   - an object keyed by category (`{ugc: {formats: […]}}` or `{ugc: ['hook', 'review']}`).
 * Lists of options may hold strings, numbers or `{value|id|name|label}` objects. Anything unrecognised is
 * dropped rather than guessed at, and a category without formats allows any format (the platform decides).
 */
import { UserInputError } from '../../src/errors.js';
import { CATALOG_ID_FIELDS, quoteId, unknownId } from './catalog-ids.js';

const LIST_TOOL = CATALOG_ID_FIELDS.category;

export interface Pack {
  category: string;
  label?: string;
  /** Allowed formats; empty = not listed (accept any). */
  formats: string[];
  /** Allowed durations (strings, as the request sends them); empty = not listed. */
  durations: string[];
  /** Allowed aspect ratios; empty = not listed. */
  aspectRatios: string[];
  /**
   * Price per generation as the packs answer gives it, under its `credits` field only: a price text
   * ("100 credits") or a bare number. Read by the price grammar in `shoppableEstimate`; a figure without a
   * unit word proves nothing here (the packs shape is unpublished: issue 27).
   */
  credits?: { image?: PackPrice; video?: PackPrice; byDuration?: Record<string, PackPrice> };
  defaults?: Record<string, string>;
}

/** One price as the packs answer gives it. */
export type PackPrice = string | number;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const CATEGORY_KEYS = ['value', 'category', 'id', 'slug', 'key', 'name'];
const LABEL_KEYS = ['label', 'title', 'name'];
const LIST_WRAPPERS = ['categories', 'packs', 'items', 'data', 'list'];

function firstString(o: Obj, keys: string[]): string | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'string' && v.trim()) return v.trim();
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return undefined;
}

/** `['a', 2, {value: 'c'}]` or `{a: …, b: …}` (keys are the options) → `['a', '2', 'c']`. */
function optionList(v: unknown): string[] {
  if (typeof v === 'string' && v.trim()) return [v.trim()];
  if (typeof v === 'number' && Number.isFinite(v)) return [String(v)];
  if (isObj(v)) return Object.keys(v);
  if (!Array.isArray(v)) return [];
  const out: string[] = [];
  for (const item of v) {
    if (typeof item === 'string' && item.trim()) out.push(item.trim());
    else if (typeof item === 'number' && Number.isFinite(item)) out.push(String(item));
    else if (isObj(item)) {
      const s = firstString(item, ['value', 'id', 'name', 'label', 'key']);
      if (s) out.push(s);
    }
  }
  return [...new Set(out)];
}

function pick(o: Obj, keys: string[]): unknown {
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) return o[k];
  return undefined;
}

/** A price kept as given: a non-empty text or a finite number (never converted: the grammar reads it). */
function num(v: unknown): PackPrice | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim()) return v.trim();
  return undefined;
}

/**
 * `"100 credits"`, `{image: …, video: …}`, `{images: …, videos: …}` or a video price per duration
 * `{video: {"15": "300 credits"}}`.
 */
function readCredits(v: unknown): Pack['credits'] {
  const flat = num(v);
  if (flat !== undefined) return { image: flat, video: flat };
  if (!isObj(v)) return undefined;
  const out: NonNullable<Pack['credits']> = {};
  const image = num(pick(v, ['image', 'images']));
  if (image !== undefined) out.image = image;
  const videoRaw = pick(v, ['video', 'videos']);
  const video = num(videoRaw);
  if (video !== undefined) out.video = video;
  else if (isObj(videoRaw)) {
    const byDuration: Record<string, PackPrice> = {};
    for (const [d, c] of Object.entries(videoRaw)) {
      const n = num(c);
      if (n !== undefined) byDuration[d] = n;
    }
    if (Object.keys(byDuration).length) out.byDuration = byDuration;
  }
  return Object.keys(out).length ? out : undefined;
}

function readDefaults(v: unknown): Record<string, string> | undefined {
  if (!isObj(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, d] of Object.entries(v)) {
    if (typeof d === 'string' || (typeof d === 'number' && Number.isFinite(d))) out[k] = String(d);
  }
  return Object.keys(out).length ? out : undefined;
}

/** A shared setting may itself be keyed by category (`{credits: {ugc: …}}`): take this category's entry. */
function sharedFor(category: string, v: unknown): unknown {
  return isObj(v) && v[category] !== undefined ? v[category] : v;
}

function readPack(category: string, o: Obj, shared: Obj): Pack {
  const field = (keys: string[]) => pick(o, keys) ?? sharedFor(category, pick(shared, keys));
  // A shared option list given as an object can only be keyed by category; other keys are not options.
  const options = (keys: string[]) => {
    const own = pick(o, keys);
    if (own !== undefined) return optionList(own);
    const s = pick(shared, keys);
    return optionList(isObj(s) ? s[category] : s);
  };
  const pack: Pack = {
    category,
    formats: options(['formats', 'allowed_formats', 'format_options']),
    durations: options(['durations', 'allowed_durations', 'duration_options']),
    aspectRatios: options(['aspect_ratios', 'aspectRatios', 'allowed_aspect_ratios']),
  };
  const label = firstString(o, LABEL_KEYS);
  if (label && label !== category) pack.label = label;
  // Only the field named for what it holds: `price`, `cost` or `credit` on an unpublished shape may be money,
  // a per-unit rate or anything else (issue 27), so they are not read as a price.
  const credits = readCredits(field(['credits']));
  if (credits) pack.credits = credits;
  const defaults = { ...readDefaults(sharedFor(category, shared.defaults)), ...readDefaults(o.defaults) };
  if (Object.keys(defaults).length) pack.defaults = defaults;
  return pack;
}

function fromList(list: unknown[], shared: Obj): Pack[] {
  const packs: Pack[] = [];
  for (const item of list) {
    if (typeof item === 'string' && item.trim()) packs.push(readPack(item.trim(), {}, shared));
    else if (isObj(item)) {
      const category = firstString(item, CATEGORY_KEYS);
      if (category) packs.push(readPack(category, item, shared));
    }
  }
  return packs;
}

/** Keys of an object-of-categories that are shared settings, not categories. */
const SHARED_KEYS = new Set(['defaults', 'durations', 'formats', 'aspect_ratios', 'credits', 'status', 'message']);

/** Turns whatever GET /shopable/packs returned into packs; never throws (an unreadable answer gives `[]`). */
export function readPacks(raw: unknown): Pack[] {
  if (Array.isArray(raw)) return dedupe(fromList(raw, {}));
  if (!isObj(raw)) return [];
  for (const k of LIST_WRAPPERS) {
    const inner = raw[k];
    if (Array.isArray(inner)) return dedupe(fromList(inner, raw));
    if (isObj(inner) && k !== 'data') return dedupe(fromKeyed(inner, raw));
    if (isObj(inner)) return readPacks(inner);
  }
  return dedupe(fromKeyed(raw, raw));
}

function fromKeyed(o: Obj, shared: Obj): Pack[] {
  const packs: Pack[] = [];
  for (const [key, v] of Object.entries(o)) {
    if (SHARED_KEYS.has(key)) continue;
    if (Array.isArray(v)) packs.push(readPack(key, { formats: v }, shared));
    else if (isObj(v)) packs.push(readPack(firstString(v, ['value', 'category', 'slug']) ?? key, v, shared));
  }
  return packs;
}

function dedupe(packs: Pack[]): Pack[] {
  const seen = new Set<string>();
  return packs.filter((p) => {
    if (seen.has(p.category)) return false;
    seen.add(p.category);
    return true;
  });
}

/**
 * The option as the platform spells it: exact match, else case-insensitive, else (for numeric options such as
 * durations) the same number (`15` ≈ `"15s"`). Undefined when not allowed.
 */
export function matchOption(options: string[], value: string): string | undefined {
  if (options.includes(value)) return value;
  const lower = value.trim().toLowerCase();
  const ci = options.find((o) => o.toLowerCase() === lower);
  if (ci) return ci;
  const n = Number.parseFloat(lower);
  if (!Number.isFinite(n) || !/^\d+(\.\d+)?\s*(s|sec|secs|seconds?)?$/.test(lower)) return undefined;
  return options.find((o) => /^\s*\d/.test(o) && Number.parseFloat(o) === n);
}

/**
 * The pack's prices that may apply to one generation, for `shoppableEstimate` (which bounds each with the price
 * grammar and takes the dearest). A video priced per duration: the requested (or default) duration's price; a
 * duration the pack prices no tier for → `[]` (nothing bounds it); no duration → every listed price. Undefined
 * when the packs answer lists no price: the operator table or the per-call ceiling then, as the spec publishes
 * no shoppable prices.
 */
export function packCredits(
  pack: Pack | undefined,
  media: 'image' | 'video',
  duration?: string,
): PackPrice[] | undefined {
  const c = pack?.credits;
  if (media === 'image') return c?.image === undefined ? undefined : [c.image];
  if (c?.byDuration) {
    if (duration === undefined) return [...Object.values(c.byDuration), ...(c.video === undefined ? [] : [c.video])];
    const key = matchOption(Object.keys(c.byDuration), duration);
    return key === undefined ? [] : [c.byDuration[key]!];
  }
  return c?.video === undefined ? undefined : [c.video];
}

export interface PackView {
  category: string;
  label?: string;
  formats: string[];
  durations?: string[];
  aspect_ratios?: string[];
  /** Prices as the packs answer gives them: `image`, `video`, or `video:<duration>` when priced per duration. */
  credits?: Record<string, PackPrice>;
  defaults?: Record<string, string>;
}

/** The agent-facing form (list tool and resource): snake_case, and lists the platform did not give are left out. */
export function packView(p: Pack): PackView {
  const v: PackView = { category: p.category, formats: p.formats };
  if (p.label) v.label = p.label;
  if (p.durations.length) v.durations = p.durations;
  if (p.aspectRatios.length) v.aspect_ratios = p.aspectRatios;
  if (p.credits) {
    const credits: Record<string, PackPrice> = {};
    if (p.credits.image !== undefined) credits.image = p.credits.image;
    if (p.credits.video !== undefined) credits.video = p.credits.video;
    for (const [d, c] of Object.entries(p.credits.byDuration ?? {})) credits[`video:${d}`] = c;
    v.credits = credits;
  }
  if (p.defaults) v.defaults = p.defaults;
  return v;
}

export interface PackChoice {
  pack: Pack;
  /** Values as the platform spells them. */
  format: string;
  duration?: string;
  aspectRatio?: string;
}

const listOr = (options: string[]) => (options.length ? options.join(', ') : 'none listed');

/**
 * Checks category, format, duration and aspect ratio against the live packs and returns the platform's
 * spelling of each. Lists the platform did not give are not enforced (it decides), except the category.
 * @throws UserInputError naming the field, with the allowed values.
 */
export function choosePack(
  packs: Pack[],
  input: { category: string; format: string; duration?: string | undefined; aspect_ratio?: string | undefined },
): PackChoice {
  const pack =
    packs.find((p) => p.category === input.category) ?? packs.find((p) => matchOption([p.category], input.category));
  if (!pack) {
    throw unknownId(
      'category',
      'category',
      input.category,
      LIST_TOOL,
      `; one of: ${listOr(packs.map((p) => p.category))}`,
    );
  }
  const format = pack.formats.length ? matchOption(pack.formats, input.format) : input.format;
  if (format === undefined) {
    throw new UserInputError(
      'format',
      `unknown format ${quoteId(input.format)} for category "${pack.category}" — call ${LIST_TOOL}; allowed: ${listOr(pack.formats)}`,
    );
  }
  const choice: PackChoice = { pack, format };
  if (input.duration !== undefined) {
    const duration = pack.durations.length ? matchOption(pack.durations, input.duration) : input.duration;
    if (duration === undefined) {
      throw new UserInputError(
        'duration',
        `not offered for category "${pack.category}"; allowed: ${listOr(pack.durations)}`,
      );
    }
    choice.duration = duration;
  }
  if (input.aspect_ratio !== undefined) {
    const ar = pack.aspectRatios.length ? matchOption(pack.aspectRatios, input.aspect_ratio) : input.aspect_ratio;
    if (ar === undefined) {
      throw new UserInputError(
        'aspect_ratio',
        `not offered for category "${pack.category}"; allowed: ${listOr(pack.aspectRatios)}`,
      );
    }
    choice.aspectRatio = ar;
  }
  return choice;
}
