/**
 * Static bearer tokens for headless callers (chat-ops bots, CI): several tokens, one per caller. A token may be
 * named (`GENPLAT_HTTP_TOKEN="bot=<token>,ci=<token>"`: owner `token:<name>`); an unnamed one keeps 0.1's owner
 * id (a short hash of the token), so the ledger and confirmation tokens never hold the token itself.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { namedTokenOwner, tokenHashOwner } from '../auth/identity.js';

/** Owner ids of unnamed tokens look like `http-1a2b3c4d5e6f` (0.1's; kept so existing ledgers match). */
export const ownerId = tokenHashOwner;

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The bearer value of an `Authorization` header, or undefined. */
export function bearerValue(authorization: string | undefined): string | undefined {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '')?.[1];
}

/**
 * Returns the check for an `Authorization` header value: the caller's owner id, or undefined.
 * Comparison is constant-time: the presented token is hashed to a fixed length and compared with every
 * known digest (no early exit), so neither its length nor which token it resembled leaks through timing.
 * `names` maps a token to its caller name (named entries only).
 */
export function createAuthenticator(
  tokens: readonly string[],
  names: Readonly<Record<string, string>> = {},
): (authorization: string | undefined) => string | undefined {
  const byToken = new Map(Object.entries(names).map(([name, token]) => [token, name]));
  const known = tokens.map((t) => {
    const name = byToken.get(t);
    return { digest: digest(t), owner: name ? namedTokenOwner(name) : ownerId(t) };
  });
  return (authorization) => {
    const presentedToken = bearerValue(authorization);
    const presented = digest(presentedToken ?? '');
    let owner: string | undefined;
    for (const k of known) {
      if (timingSafeEqual(presented, k.digest) && presentedToken !== undefined) owner = k.owner;
    }
    return owner;
  };
}
