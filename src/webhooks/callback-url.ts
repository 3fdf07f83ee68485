/**
 * Our per-job callback URL (issue 11 item 5): `<public>/hooks/<ledger id>.<mac>`, where mac is an HMAC of the
 * ledger record id keyed from the store's consent key. Nothing extra is stored, every instance on the same store
 * verifies it, and it cannot be guessed (192 bits) or moved to another record. It only ever names which job to
 * re-read: a callback is a hint, never trusted for status, outputs or charges (src/webhooks/receiver.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The path prefix the receiver answers under (outside the MCP endpoint, no bearer token). */
export const HOOK_PREFIX = '/hooks/';

/** Domain label: the consent key also signs confirmation tokens and requestState; a hook MAC is never either. */
const LABEL = 'genplat-webhook/1\n';

/** 32 base64url characters = 192 bits: far past guessing, and short enough for any URL length limit. */
const MAC_CHARS = 32;

/** Ledger ids are UUIDs (src/store/record.ts); anything else in the path is refused before any lookup. */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function mac(ledgerId: string, key: Buffer): string {
  return createHmac('sha256', key).update(LABEL).update(ledgerId).digest('base64url').slice(0, MAC_CHARS);
}

/** The callback URL for ledger record `ledgerId` under `base` (an origin with an optional path, no trailing /). */
export function callbackUrl(base: string, ledgerId: string, key: Buffer): string {
  return `${base}${HOOK_PREFIX}${ledgerId}.${mac(ledgerId, key)}`;
}

/**
 * The ledger id a hook path names, if its MAC is right; undefined for anything else (no detail: a prober
 * learns nothing from the answer).
 */
export function verifyHookPath(path: string, key: Buffer): string | undefined {
  if (!path.startsWith(HOOK_PREFIX)) return undefined;
  const rest = path.slice(HOOK_PREFIX.length);
  const dot = rest.indexOf('.');
  if (dot < 0) return undefined;
  const id = rest.slice(0, dot);
  const given = Buffer.from(rest.slice(dot + 1));
  if (!ID.test(id)) return undefined;
  const want = Buffer.from(mac(id, key));
  return given.length === want.length && timingSafeEqual(given, want) ? id : undefined;
}
