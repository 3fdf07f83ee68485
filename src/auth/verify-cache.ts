/**
 * Verified-token memory (issue 19 item 3): a token checked once is not checked again on every request, so a
 * busy caller costs the identity provider one introspection per token, and a burst of the same bad token one.
 *
 * - Keyed by SHA-256 of the token: the token itself is never kept in memory here (nor could a heap dump or a
 *   log of this map show it).
 * - A verified token is remembered for at most `VERIFIED_TTL_MS` (60 s), and never past its own `exp`
 *   (RFC 7519 §4.1.4): a token revoked or narrowed at the provider (RFC 7009 revocation, a scope taken back) is
 *   asked about again within that window and refused or narrowed then, however far away its `exp` is
 *   (issue 27 item 5). A JWT is re-verified locally (the key set is cached), an opaque token re-introspected.
 * - A refused token (`OAuthError`, i.e. 401/403-worthy) is remembered for `NEGATIVE_TTL_MS`, so one bad token
 *   repeated costs one check per window. Outages (any other error) are not remembered here: the discovery and
 *   key-set reads keep their own short failure memory (src/auth/outage-memo.ts).
 * - Concurrent checks of one token share one provider request.
 * - Bounded: at most `MAX_ENTRIES` per kind, least recently used first out.
 */
import { createHash } from 'node:crypto';
import { type AuthInfo, OAuthError, type OAuthTokenVerifier } from '@modelcontextprotocol/server';

/**
 * 10,000 entries: ~1 KiB each, ~10 MiB at most; far above the callers of one instance (one token each, refreshed
 * every few minutes), small enough that a flood of made-up tokens cannot grow the process.
 */
export const MAX_ENTRIES = 10_000;
/**
 * 10 s: long enough that a client retrying a bad token in a loop (hosts retry at once, then back off over
 * seconds) costs one provider request per window, short enough that a token the provider just issued, and
 * that raced its own propagation, works a moment later.
 */
export const NEGATIVE_TTL_MS = 10_000;
/**
 * 60 s: the longest a revoked or narrowed token keeps working here (issue 27 item 5 asks for at most 60 s;
 * docs/security.md). A host calls a few times a second while a job runs, so this costs the provider one
 * introspection per token per minute, not one per request.
 */
export const VERIFIED_TTL_MS = 60_000;

export interface CachingTokenVerifier extends OAuthTokenVerifier {
  /**
   * True when `token` was verified and has not reached its `exp` nor been refused since: a caller already known,
   * whom a throttled address still lets through. Its check may be due again (at most one provider request per
   * known token per `VERIFIED_TTL_MS`, so a flood of made-up tokens cannot use this door).
   */
  knownGood(token: string): boolean;
}

/** A small LRU on a Map (insertion order = recency: a hit is re-inserted). */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, v: V): void {
    this.map.delete(key);
    this.map.set(key, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
  delete(key: string): void {
    this.map.delete(key);
  }
  get size(): number {
    return this.map.size;
  }
}

const keyOf = (token: string) => createHash('sha256').update(token).digest('base64url');

export function cachingVerifier(
  inner: OAuthTokenVerifier,
  opts: { now: () => number; maxEntries?: number; negativeTtlMs?: number; verifiedTtlMs?: number },
): CachingTokenVerifier {
  const max = opts.maxEntries ?? MAX_ENTRIES;
  const negativeTtl = opts.negativeTtlMs ?? NEGATIVE_TTL_MS;
  const verifiedTtl = opts.verifiedTtlMs ?? VERIFIED_TTL_MS;
  // `until` = when to ask the provider again; `exp` = when the token stops being known at all.
  const good = new Lru<{ info: AuthInfo; until: number; exp: number }>(max);
  const bad = new Lru<{ err: OAuthError; until: number }>(max);
  const pending = new Map<string, Promise<AuthInfo>>();

  const fresh = (key: string) => {
    const hit = good.get(key);
    if (hit && hit.until > opts.now()) return hit.info;
    return undefined;
  };
  const known = (key: string) => {
    const hit = good.get(key);
    if (hit && hit.exp > opts.now()) return true;
    if (hit) good.delete(key);
    return false;
  };

  return {
    knownGood: (token) => known(keyOf(token)),
    async verifyAccessToken(token) {
      const key = keyOf(token);
      const info = fresh(key);
      if (info) return info;
      const refused = bad.get(key);
      if (refused && refused.until > opts.now()) throw refused.err;
      const inFlight = pending.get(key);
      if (inFlight) return inFlight;
      // The window counts from when the provider was asked, not from when it answered: never longer than promised.
      const checkedAt = opts.now();
      const p = inner.verifyAccessToken(token).then(
        (info) => {
          // No `exp`: nothing says how long it stays valid, so it is not remembered at all.
          // Else until the earlier of its `exp` and the revocation window.
          if (info.expiresAt !== undefined) {
            const exp = info.expiresAt * 1000;
            good.set(key, { info, until: Math.min(exp, checkedAt + verifiedTtl), exp });
          }
          bad.delete(key);
          return info;
        },
        (err: unknown) => {
          if (err instanceof OAuthError) {
            // Revoked, narrowed away or expired since it was known: known no longer.
            good.delete(key);
            bad.set(key, { err, until: opts.now() + negativeTtl });
          }
          throw err;
        },
      );
      pending.set(key, p);
      try {
        return await p;
      } finally {
        pending.delete(key);
      }
    },
  };
}
