/**
 * Quote only what can run: a billable tool's `validate` checks every id the live catalog defines (avatar,
 * voice, template, model, pack category and format) against the cached catalog (src/catalog.ts), so an
 * unknown id is refused before any quote, token or POST, with the list tool to call:
 * `avatar_id: unknown avatar 'av_nope' — call list_avatars`.
 *
 * - A miss re-reads that one list before refusing (a free GET): the cache may predate the id (a custom avatar
 *   made a minute ago).
 * - When the list cannot be read, an id that is only checked (`price: false`: avatars, voices) is let
 *   through and the platform decides (it answers 404 before charging); the failure is logged. An id the
 *   quote needs (templates, models, packs: the price or the request's spelling comes from the list) cannot be
 *   quoted without it, so that call fails with the catalog's own error, and nothing is sent.
 *
 * test/invariants/catalog-ids.test.ts proves every billable tool with such a field refuses an unknown id.
 */
import type { Catalog, CatalogList } from '../../src/catalog.js';
import type { ToolContext } from '../../src/define-tool.js';
import { UserInputError } from '../../src/errors.js';

/** Input fields whose values are catalog ids, and the list tool that shows them (the invariant test reads it). */
export const CATALOG_ID_FIELDS = {
  avatar_id: 'list_avatars',
  voice_id: 'list_voices',
  template_id: 'list_templates',
  model: 'list_models',
  category: 'list_shoppable_packs',
  format: 'list_shoppable_packs',
} as const;

/** An id as the refusal quotes it: short, and on one line whatever the caller sent. */
export function quoteId(id: string): string {
  const flat = id.replace(/\s+/g, ' ');
  return `'${flat.length > 64 ? `${flat.slice(0, 61)}...` : flat}'`;
}

/** The refusal every catalog check uses. */
export function unknownId(field: string, what: string, id: string, listTool: string, extra = ''): UserInputError {
  return new UserInputError(field, `unknown ${what} ${quoteId(id)} — call ${listTool}${extra}`);
}

export interface ListedCheck<T> {
  field: string;
  /** What the id names, for the message: `avatar`, `voice`, `template`. */
  what: string;
  id: string;
  listTool: string;
  list: CatalogList;
  read(catalog: Catalog): Promise<T[]>;
  matches(item: T): boolean;
  /** The quote needs this list (price, spelling): a failed read fails the call instead of letting it through. */
  price: boolean;
  /** A more precise refusal for a known mix-up (a voice's `voiceId` given as `voice_id`). */
  explain?(items: T[]): UserInputError | undefined;
}

/**
 * @returns the matching entry, or undefined when the list could not be read and `price` is false.
 * @throws UserInputError naming the field and the list tool when the id is not in the (re-read) list; the
 *   catalog's own error when the list cannot be read and `price` is true.
 */
export async function requireListed<T>(ctx: ToolContext, c: ListedCheck<T> & { price: true }): Promise<T>;
export async function requireListed<T>(ctx: ToolContext, c: ListedCheck<T>): Promise<T | undefined>;
export async function requireListed<T>(ctx: ToolContext, c: ListedCheck<T>): Promise<T | undefined> {
  const cached = await readOrSkip(ctx, c);
  if (cached === undefined) return undefined;
  const hit = cached.find(c.matches);
  if (hit) return hit;
  // Not in the cached list: re-read it once before refusing (the id may be newer than the cache).
  ctx.catalog.forget(c.list);
  const fresh = await readOrSkip(ctx, c);
  // The cached list did not have it and the fresh one cannot be read: refusing would rest on stale data.
  if (fresh === undefined) return undefined;
  const found = fresh.find(c.matches);
  if (found) return found;
  throw c.explain?.(fresh) ?? unknownId(c.field, c.what, c.id, c.listTool);
}

/**
 * The list, or undefined when it cannot be read and the check is not needed for the price (the platform still
 * checks the id); a list the quote needs (`price`) passes the catalog's error on.
 */
async function readOrSkip<T>(ctx: ToolContext, c: ListedCheck<T>): Promise<T[] | undefined> {
  try {
    return await c.read(ctx.catalog);
  } catch (err) {
    if (c.price) throw err;
    ctx.log.warn(`${c.list} list unavailable; ${c.field} not checked locally (the platform still checks it)`, {
      error: String(err),
    });
    return undefined;
  }
}

/** `avatar_id` (stock and the account's custom avatars). */
export function requireAvatar(ctx: ToolContext, id: string, field = 'avatar_id') {
  return requireListed(ctx, {
    field,
    what: 'avatar',
    id,
    listTool: CATALOG_ID_FIELDS.avatar_id,
    list: 'avatars',
    read: (c) => c.avatars(),
    matches: (a) => a.id === id,
    price: false,
  });
}

/**
 * `voice_id` must be a voice's `id`; its `voiceId` is another identifier the platform does not take here,
 * so that mix-up gets its own message with the right value.
 */
export function requireVoice(ctx: ToolContext, id: string, field = 'voice_id') {
  return requireListed(ctx, {
    field,
    what: 'voice',
    id,
    listTool: CATALOG_ID_FIELDS.voice_id,
    list: 'voices',
    read: (c) => c.voices(),
    matches: (v) => v.id === id,
    price: false,
    explain: (voices) => {
      const confused = voices.find((v) => v.voiceId === id);
      return confused
        ? new UserInputError(field, `this is a voiceId; pass the voice's id "${confused.id}" instead (list_voices)`)
        : undefined;
    },
  });
}
