/**
 * The approval page's browser state, all of it signed by the one signer (purpose `approval-link`, each kind its
 * own `bind`, so none opens as another) and nothing kept in memory: a fleet instance that never saw the start
 * of a sign-in verifies its callback, its session and its form token alike.
 *
 * - flow cookie: a sign-in in progress — a random `r` (also the OAuth `state`), the link it started from, 10 min.
 *   The PKCE verifier and the ID token's nonce are derived from `r` with the key, so neither is stored anywhere
 *   nor ever leaves the server except the verifier, once, to the token endpoint.
 * - session cookie: the verified approver (caller id + display name) for ONE approval, 10 min, random `sid`.
 * - form token (CSRF): a MAC over `sid` + approval id; the POST must carry it.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { keyedDigest, open, sign } from '../../signer.js';

export const FLOW_COOKIE = 'genplat_approve_flow';
export const SESSION_COOKIE = 'genplat_approve_session';
/** A sign-in (provider login included) must finish within this. */
export const FLOW_TTL_MS = 10 * 60 * 1000;
/** Reading the card and deciding; a longer pause signs in again (instant while the provider's session lasts). */
export const SESSION_TTL_MS = 10 * 60 * 1000;

export interface Flow {
  r: string;
  /** The link token (after `/approve/`) the sign-in returns to. */
  link: string;
  exp: number;
}

export interface ApproverSession {
  approver: string;
  name?: string | undefined;
  approvalId: string;
  sid: string;
  exp: number;
}

const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
function dec(s: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
    return v && typeof v === 'object' ? v : undefined;
  } catch {
    return undefined;
  }
}

export function newFlow(key: Buffer, link: string, now: number): { flow: Flow; cookie: string } {
  const flow = { r: randomBytes(16).toString('base64url'), link, exp: now + FLOW_TTL_MS };
  return { flow, cookie: sign(key, 'approval-link', enc(flow), { bind: 'flow' }) };
}

export function openFlow(key: Buffer, cookie: string | undefined, now: number): Flow | undefined {
  const payload = cookie ? open(key, 'approval-link', cookie, { bind: 'flow' }) : undefined;
  const f = payload ? dec(payload) : undefined;
  if (!f || typeof f.r !== 'string' || typeof f.link !== 'string' || typeof f.exp !== 'number') return undefined;
  return f.exp > now ? (f as unknown as Flow) : undefined;
}

/** RFC 7636 code verifier: 43 base64url characters (256 bits), recomputable by any instance from `r`. */
export const pkceVerifier = (key: Buffer, r: string) => keyedDigest(key, 'approval-link', r, { bind: 'pkce-verifier' });
/** The ID token's `nonce` for this sign-in. */
export const idNonce = (key: Buffer, r: string) =>
  keyedDigest(key, 'approval-link', r, { bind: 'oidc-nonce', macBytes: 16 });

export function newSession(
  key: Buffer,
  s: { approver: string; name?: string | undefined; approvalId: string },
  now: number,
): string {
  const session: ApproverSession = { ...s, sid: randomBytes(16).toString('base64url'), exp: now + SESSION_TTL_MS };
  return sign(key, 'approval-link', enc(session), { bind: 'session' });
}

/** The session for `approvalId`, or undefined (none, forged, expired, or for another approval). */
export function openSession(
  key: Buffer,
  cookie: string | undefined,
  approvalId: string,
  now: number,
): ApproverSession | undefined {
  const payload = cookie ? open(key, 'approval-link', cookie, { bind: 'session' }) : undefined;
  const s = payload ? dec(payload) : undefined;
  if (!s || typeof s.approver !== 'string' || typeof s.sid !== 'string' || typeof s.exp !== 'number') return undefined;
  if (s.approvalId !== approvalId || s.exp <= now) return undefined;
  return s as unknown as ApproverSession;
}

export const formToken = (key: Buffer, s: ApproverSession) =>
  keyedDigest(key, 'approval-link', `${s.sid}\n${s.approvalId}`, { bind: 'csrf' });

export function formTokenValid(key: Buffer, s: ApproverSession, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const want = Buffer.from(formToken(key, s));
  const got = Buffer.from(given);
  return got.length === want.length && timingSafeEqual(got, want);
}

/** Reads one cookie from the request's Cookie header. */
export function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** HttpOnly, SameSite=Lax (the provider's redirect back is a top-level GET, which Lax lets through), /approve only. */
export function setCookie(name: string, value: string, maxAgeMs: number, secure: boolean): string {
  const age = Math.max(0, Math.floor(maxAgeMs / 1000));
  return `${name}=${value}; Path=/approve; Max-Age=${age}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
