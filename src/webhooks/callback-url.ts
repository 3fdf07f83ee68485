/**
 * Our per-job callback URL (issue 11 item 5): `<public>/hooks/<ledger id>.<mac>`, where mac is the one signer's MAC
 * (`src/signer.ts`, purpose `webhook-path`) of the ledger record id. Nothing extra is stored, every instance on the same store
 * verifies it, and it cannot be guessed (192 bits) or moved to another record. It only ever names which job to
 * re-read: a callback is a hint, never trusted for status, outputs or charges (src/webhooks/receiver.ts).
 */
import { open, sign } from '../signer.js';

/** The path prefix the receiver answers under (outside the MCP endpoint, no bearer token). */
export const HOOK_PREFIX = '/hooks/';

/** 24 bytes = 32 base64url characters = 192 bits: far past guessing, and short enough for any URL length limit. */
const MAC_BYTES = 24;

/** Ledger ids are UUIDs (src/store/record.ts); anything else in the path is refused before any lookup. */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The callback URL for ledger record `ledgerId` under `base` (an origin with an optional path, no trailing /). */
export function callbackUrl(base: string, ledgerId: string, key: Buffer): string {
  return `${base}${HOOK_PREFIX}${sign(key, 'webhook-path', ledgerId, { macBytes: MAC_BYTES })}`;
}

/**
 * The ledger id a hook path names, if its MAC is right; undefined for anything else (no detail: a prober
 * learns nothing from the answer).
 */
export function verifyHookPath(path: string, key: Buffer): string | undefined {
  if (!path.startsWith(HOOK_PREFIX)) return undefined;
  const id = open(key, 'webhook-path', path.slice(HOOK_PREFIX.length), { macBytes: MAC_BYTES });
  return id !== undefined && ID.test(id) ? id : undefined;
}
