/**
 * Confirmation tokens: the consent path that works in every host (mcp-notes.md 2.7). HMAC-SHA256 signed
 * with the store's consent key (`store.consentKey()`), so any process on the same store can verify them
 * (restart, several HTTP instances). Pure: single use is `store.admit`'s job (`AdmitRules.nonce`), in the
 * transaction that writes the intent.
 *
 * Format: the one signer's (`src/signer.ts`, purpose `confirmation-token`): base64url(JSON claims) + '.' + MAC.
 */
import { randomBytes } from 'node:crypto';
import { open, sign } from '../signer.js';

/**
 * 10 minutes: long enough for a person to read the quote in chat and answer, short enough that a stale quote
 * (price, balance, or a forgotten conversation) is not redeemed later, and the nonce set stays small.
 */
export const TOKEN_TTL_MS = 10 * 60_000;

export interface TokenClaims {
  tool: string;
  fingerprint: string;
  /** The estimate's displayed credits the user agreed to. */
  credits: number;
  /** HTTP caller; null on stdio. */
  owner: string | null;
  /**
   * Set when quoted with `allow_duplicate: true`: the user agreed to a second identical job. Bound like an
   * argument, so a spare token from the first quote cannot start a duplicate the user never saw quoted.
   */
  dup?: true;
  /**
   * Ledger id of the earlier identical submission whose outcome was unknown (or pending) when quoted: the user
   * was told that job may already exist and be charged. A token quoted without that warning cannot start a
   * resend of it, and one quoted for one such record cannot be spent on another.
   */
  dupOf?: string;
  /** Expiry, ms since epoch. */
  exp: number;
  nonce: string;
}

export type Expected = Pick<TokenClaims, 'tool' | 'fingerprint' | 'credits'> & {
  owner: string | undefined;
  /** The call's `allow_duplicate` (default false). */
  allowDuplicate?: boolean;
  /** Ledger id of the unknown/pending identical record `allow_duplicate` overrides, if any. */
  duplicateOf?: string | undefined;
};

export type TokenCheck = { ok: true; claims: TokenClaims } | { ok: false; reason: string };

const b64 = (buf: Buffer | string) => Buffer.from(buf).toString('base64url');

/** Signs a fresh single-use token for exactly this tool, arguments, estimate and owner. */
export function issueToken(
  secret: Buffer,
  expected: Expected,
  now: number,
  ttlMs: number = TOKEN_TTL_MS,
): { token: string; expiresAt: Date } {
  const claims: TokenClaims = {
    tool: expected.tool,
    fingerprint: expected.fingerprint,
    credits: expected.credits,
    owner: expected.owner ?? null,
    ...(expected.allowDuplicate ? { dup: true as const } : {}),
    ...(expected.duplicateOf ? { dupOf: expected.duplicateOf } : {}),
    exp: now + ttlMs,
    nonce: randomBytes(16).toString('base64url'),
  };
  return { token: sign(secret, 'confirmation-token', b64(JSON.stringify(claims))), expiresAt: new Date(claims.exp) };
}

/**
 * Checks signature, expiry and binding (tool, arguments, estimate, owner). Does not consume the nonce:
 * `store.admit` does (AdmitRules.nonce), once every other check passed. The reasons are shown to the agent.
 */
export function verifyToken(secret: Buffer, token: string, expected: Expected, now: number): TokenCheck {
  const parts = token.trim().split('.');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return { ok: false, reason: 'the confirmation_token is malformed' };
  const body = open(secret, 'confirmation-token', token.trim());
  if (body === undefined) {
    return { ok: false, reason: 'the confirmation_token is not valid (not issued by this server)' };
  }
  let claims: TokenClaims;
  try {
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as TokenClaims;
  } catch {
    return { ok: false, reason: 'the confirmation_token is malformed' };
  }
  if (typeof claims.exp !== 'number' || now >= claims.exp) {
    return { ok: false, reason: 'the confirmation_token has expired' };
  }
  if (claims.tool !== expected.tool)
    return { ok: false, reason: `the confirmation_token was issued for ${claims.tool}` };
  if (claims.fingerprint !== expected.fingerprint) {
    return { ok: false, reason: 'the arguments changed since the confirmation_token was issued' };
  }
  if (claims.credits !== expected.credits) {
    return {
      ok: false,
      reason: `the estimate changed since the confirmation_token was issued (${claims.credits} → ${expected.credits} credits)`,
    };
  }
  if (claims.owner !== (expected.owner ?? null)) {
    return { ok: false, reason: 'the confirmation_token belongs to another caller' };
  }
  if ((claims.dup === true) !== (expected.allowDuplicate === true)) {
    return {
      ok: false,
      reason: claims.dup
        ? 'the confirmation_token was issued with allow_duplicate: true, and this call does not set it'
        : 'allow_duplicate changed since the confirmation_token was issued; a second identical job needs its own confirmation',
    };
  }
  if ((claims.dupOf ?? null) !== (expected.duplicateOf ?? null)) {
    return {
      ok: false,
      reason: expected.duplicateOf
        ? 'an identical earlier submission has an unknown outcome that the confirmation_token was not quoted with; the user must confirm again knowing a job may already exist'
        : 'the earlier submission the confirmation_token was quoted against is settled now; quote again',
    };
  }
  return { ok: true, claims };
}
