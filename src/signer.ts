/**
 * The one signer (issue 18 item 6): every signed thing this server hands out — confirmation tokens, the
 * 2026-07-28 form's request state, task ids, webhook callback paths, self-served staged file URLs and upload
 * links, the Views' click nonces, the approval page's links, sign-in flow, session and form tokens and the account fingerprint of queued campaign items — is signed here, with one key derivation
 * and one format, so no second HMAC scheme can drift from this one.
 *
 * - Key: HKDF-SHA256 of the store's consent key (`store.consentKey()`: 32 random bytes shared by every process
 *   and fleet instance) with the purpose as `info`. A MAC made for one purpose never verifies for another.
 * - Format: `<payload>.<base64url MAC>`, the MAC over the payload (and over `bind`, a context that must match
 *   but is not carried, e.g. the caller a task id belongs to). The payload may hold dots: the MAC is the last part.
 * - MAC length: 32 bytes unless a purpose needs a shorter string (a URL path); never below 16 (128 bits).
 *
 * Pure and synchronous; no I/O, no MCP SDK.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export type SignedPurpose =
  | 'confirmation-token'
  | 'request-state'
  | 'task-id'
  | 'webhook-path'
  | 'staged-file'
  | 'upload-link'
  | 'account-id'
  | 'app-view'
  | 'approval-link';

export interface SignOptions {
  /** Context bound into the MAC but not carried in the string (length-prefixed, so no two contexts collide). */
  bind?: string | undefined;
  /** MAC bytes; default 32, at least 16. */
  macBytes?: number | undefined;
}

const SALT = 'genplat-mcp signer v1';

/** No unpaired UTF-16 surrogate (String.prototype.isWellFormed, which this TypeScript lib does not declare). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const wellFormed = (s: string) => !LONE_SURROGATE.test(s);

/** The purpose's own key: derived, never the consent key itself. */
export function purposeKey(root: Buffer, purpose: SignedPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', root, SALT, purpose, 32));
}

function mac(root: Buffer, purpose: SignedPurpose, payload: string, opts: SignOptions): Buffer {
  const bytes = opts.macBytes ?? 32;
  // UTF-8 turns every unpaired surrogate into U+FFFD: two different strings would share one MAC.
  if (!wellFormed(payload) || !wellFormed(opts.bind ?? '')) throw new RangeError('not well-formed Unicode');
  if (bytes < 16 || bytes > 32) throw new RangeError(`macBytes must be 16-32, got ${bytes}`);
  const bind = opts.bind ?? '';
  return createHmac('sha256', purposeKey(root, purpose))
    .update(`${bind.length}:${bind}\n`)
    .update(payload)
    .digest()
    .subarray(0, bytes);
}

/**
 * The MAC alone, for a secret that must be recognised but never carried (`account-id`: which API key a campaign
 * item was consented for, src/paid/consented-for.ts). base64url, `macBytes` long.
 */
export function keyedDigest(root: Buffer, purpose: SignedPurpose, secret: string, opts: SignOptions = {}): string {
  return mac(root, purpose, secret, opts).toString('base64url');
}

/** `<payload>.<MAC>`. */
export function sign(root: Buffer, purpose: SignedPurpose, payload: string, opts: SignOptions = {}): string {
  return `${payload}.${mac(root, purpose, payload, opts).toString('base64url')}`;
}

/** The payload of a string this signer made for `purpose` (and `bind`), or undefined for anything else. */
export function open(root: Buffer, purpose: SignedPurpose, signed: string, opts: SignOptions = {}): string | undefined {
  if (!wellFormed(signed) || !wellFormed(opts.bind ?? '')) return undefined;
  const dot = signed.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const payload = signed.slice(0, dot);
  const given = Buffer.from(signed.slice(dot + 1), 'base64url');
  const want = mac(root, purpose, payload, opts);
  // base64url decoding ignores junk characters: compare the re-encoded form too, so one string has one MAC.
  if (given.length !== want.length || given.toString('base64url') !== signed.slice(dot + 1)) return undefined;
  return timingSafeEqual(given, want) ? payload : undefined;
}
