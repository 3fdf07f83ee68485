/**
 * Proof that a Confirm click comes from a View this server served (issue 27 item 6). A client's declared MCP Apps
 * capability is only a claim: a client that declares it and lets its model call `confirm_paid_call` would make
 * the model's call a "click". So each read of a View that holds the consent card (the job viewer, the campaign
 * board) carries a fresh nonce, signed by the one signer (purpose `app-view`) and bound to the caller (HTTP
 * owner; none on stdio); the card sends it with the click, and under GENPLAT_CONSENT=human a `confirm_paid_call`
 * without a valid one is refused unsent (under `any` it is recorded as a token, not a click).
 *
 * What it proves, and what not: the caller's client read our View's HTML (a host renders it; a model is never
 * handed a UI resource's text by a host). A client that reads the resource and gives its model the nonce can
 * still pretend: no server-side check can see a person; this moves the line from "declares a capability" to
 * "reads our View's HTML and pulls a value out of it", and the nonce expires.
 */
import { randomBytes } from 'node:crypto';
import { open, sign } from '../signer.js';

/**
 * 24 hours: a View stays open in a conversation while a person reads the card, comes back later, or reopens the
 * conversation (hosts read the View again when they render it). Past it the click is refused with the way on:
 * reopen the quote.
 */
export const VIEW_NONCE_TTL_MS = 24 * 60 * 60 * 1000;

/** Where a View's HTML gets its nonce (html.ts leaves this marker in the Views that hold the consent card). */
export const VIEW_NONCE_MARKER = '<!-- VIEW_NONCE -->';

/** A fresh nonce for one read of a View by `owner` (undefined on stdio). */
export function issueViewNonce(key: Buffer, owner: string | undefined, now: number): string {
  return sign(key, 'app-view', `v1.${now}.${randomBytes(9).toString('base64url')}`, { bind: owner ?? '' });
}

/** The View's HTML with its nonce in a `<meta>` the consent card reads (the nonce is base64url, digits and dots). */
export function withViewNonce(html: string, nonce: string): string {
  return html.replace(VIEW_NONCE_MARKER, () => `<meta name="genplat-view-nonce" content="${nonce}">`);
}

/** Undefined when `nonce` is one we issued to `owner` less than `VIEW_NONCE_TTL_MS` ago; else why not. */
export function viewNonceProblem(
  key: Buffer,
  nonce: string | undefined,
  owner: string | undefined,
  now: number,
): string | undefined {
  if (!nonce) return 'missing';
  const payload = open(key, 'app-view', nonce, { bind: owner ?? '' });
  const issued = payload ? Number(payload.split('.')[1]) : Number.NaN;
  if (!Number.isFinite(issued)) return 'not one this server gave its View';
  if (now - issued > VIEW_NONCE_TTL_MS || issued - now > 60_000) return 'expired';
  return undefined;
}
