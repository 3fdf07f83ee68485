/**
 * Bearer-token authentication for the HTTP transport. Several tokens, one per caller; the caller's identity
 * (`owner`) is a short hash of its token, so the ledger and confirmation tokens never hold the token itself.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Owner ids look like `http-1a2b3c4d5e6f`: 48 bits of sha256 tell a handful of callers apart, nothing more. */
export function ownerId(token: string): string {
  return `http-${createHash('sha256').update(token).digest('hex').slice(0, 12)}`;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Returns the check for an `Authorization` header value: the caller's owner id, or undefined.
 * Comparison is constant-time: the presented token is hashed to a fixed length and compared with every
 * known digest (no early exit), so neither its length nor which token it resembled leaks through timing.
 * @throws Error when `tokens` is empty (HTTP mode must never run without authentication).
 */
export function createAuthenticator(
  tokens: readonly string[],
): (authorization: string | undefined) => string | undefined {
  if (tokens.length === 0) throw new Error('at least one HTTP bearer token is required');
  const known = tokens.map((t) => ({ digest: digest(t), owner: ownerId(t) }));
  return (authorization) => {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
    const presented = digest(m?.[1] ?? '');
    let owner: string | undefined;
    for (const k of known) {
      if (timingSafeEqual(presented, k.digest) && m) owner = k.owner;
    }
    return owner;
  };
}
