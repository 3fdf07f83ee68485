/**
 * Cached catalog lists shared by list tools, resources and validators. Short TTL: lists change rarely,
 * and every validator that needs one (voices, templates, packs, models) must not cost a round trip per call.
 */
import type { Avatar, CatalogEntry, Category, Template, Voice } from './client/schemas.js';
import type { PlatformClient } from './client/types.js';

export interface Catalog {
  avatars(q?: { gender?: string }): Promise<Avatar[]>;
  voices(q?: { language?: string; gender?: string }): Promise<Voice[]>;
  templates(category?: string): Promise<Template[]>;
  /** One template by id (from the full list). */
  template(id: string): Promise<Template | undefined>;
  categories(): Promise<Category[]>;
  packs(): Promise<unknown>;
  /** Live enterprise catalog (GET /enterprise/models). */
  models(): Promise<CatalogEntry[]>;
  /**
   * Drops one list (every filter of it) so the next read fetches it again: an id missing from a cached list
   * may be newer than the list (a custom avatar made a minute ago).
   */
  forget(list: CatalogList): void;
  invalidate(): void;
}

export type CatalogList = 'avatars' | 'voices' | 'templates' | 'categories' | 'packs' | 'models';

export interface CatalogOptions {
  /**
   * How long a list stays fresh. 5 min: long enough that a burst of list/validate calls costs one request,
   * short enough that a new custom avatar or voice shows up within a conversation turn or two.
   */
  ttlMs?: number;
  now?: () => number;
}

export const DEFAULT_CATALOG_TTL_MS = 5 * 60_000;

/** Filters are case-insensitive on the platform, so `Female` and `female` share one cache entry. */
const norm = (v: string | undefined) => v?.trim().toLowerCase() || undefined;

/**
 * A catalog over `client`: each distinct list (and filter) is fetched at most once per TTL; concurrent
 * askers share one in-flight request; a failed fetch is not cached.
 * @throws nothing itself; each list method rejects with the client's PlatformError when its fetch fails.
 */
export function createCatalog(client: PlatformClient, opts: CatalogOptions = {}): Catalog {
  const ttl = opts.ttlMs ?? DEFAULT_CATALOG_TTL_MS;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { at: number; value: Promise<unknown> }>();

  function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = cache.get(key);
    if (hit && now() - hit.at < ttl) return hit.value as Promise<T>;
    const value = load();
    const entry = { at: now(), value };
    cache.set(key, entry);
    // Errors are not cached: the next asker tries again (only if nobody replaced the entry meanwhile).
    value.catch(() => {
      if (cache.get(key) === entry) cache.delete(key);
    });
    return value;
  }

  const key = (name: string, q: Record<string, string | undefined>) =>
    `${name}?${Object.entries(q)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${v}`)
      .join('&')}`;

  const templates = (category?: string) => {
    // The spec does not say category values are case-insensitive, so they are sent (and cached) as given.
    // The platform's default category is `all`: one cache entry for "no category" and "all".
    const c = category?.trim() || undefined;
    const cat = c === 'all' ? undefined : c;
    return cached(key('templates', { category: cat }), async () => {
      const res = await client.library.templates(cat ? { category: cat } : undefined);
      return res.data;
    });
  };

  return {
    avatars(q) {
      const gender = norm(q?.gender);
      return cached(
        key('avatars', { gender }),
        async () => (await client.avatars.list(gender ? { gender } : undefined)).data,
      );
    },
    voices(q) {
      const language = norm(q?.language);
      const gender = norm(q?.gender);
      const query = { ...(language ? { language } : {}), ...(gender ? { gender } : {}) };
      return cached(
        key('voices', { language, gender }),
        async () => (await client.voices.list(Object.keys(query).length ? query : undefined)).data,
      );
    },
    templates,
    async template(id) {
      const all = await templates();
      return all.find((t) => t.id === id);
    },
    categories() {
      return cached('categories', async () => (await client.library.categories()).data);
    },
    packs() {
      return cached('packs', async () => (await client.ads.packs()).data);
    },
    models() {
      return cached('models', async () => (await client.enterprise.models()).data);
    },
    forget(list) {
      for (const k of [...cache.keys()]) if (k === list || k.startsWith(`${list}?`)) cache.delete(k);
    },
    invalidate() {
      cache.clear();
    },
  };
}
