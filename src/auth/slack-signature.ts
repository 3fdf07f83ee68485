/**
 * Slack's request signature (Slack identity auth, issue 28 item 1): every request Slack sends, MCP POSTs from
 * Slackbot included, carries `X-Slack-Request-Timestamp` and `X-Slack-Signature: v0=<hex>`, the hex being
 * HMAC-SHA256 under the Slack app's signing secret of `v0:<timestamp>:<raw body>` ("Verifying requests from
 * Slack"). Checked over the raw bytes as received, before any parsing, in constant time, against every configured
 * secret (rotation, several Slack apps) without an early exit.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack's replay window: a timestamp further than this from our clock is refused. */
export const SLACK_MAX_SKEW_S = 5 * 60;

/** `v0=<hex>` for `body` signed at `timestamp` (seconds, as the header spells it) with `secret`. */
export function slackSignature(secret: string, timestamp: string, body: Buffer | string): string {
  const mac = createHmac('sha256', secret);
  mac.update(`v0:${timestamp}:`);
  mac.update(body);
  return `v0=${mac.digest('hex')}`;
}

export type SlackSignatureVerdict = { ok: true } | { ok: false; reason: 'missing' | 'stale' | 'mismatch' };

/**
 * What the headers alone can refuse, before a byte of the body is read (a missing header, a stale or malformed
 * timestamp): an unverified request never holds a body buffer for these.
 */
export function checkSlackHeaders(opts: {
  timestamp: string | undefined;
  signature: string | undefined;
  nowMs: number;
}): SlackSignatureVerdict {
  const { timestamp, signature } = opts;
  if (!timestamp || !signature) return { ok: false, reason: 'missing' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'stale' };
  if (Math.abs(opts.nowMs / 1000 - Number(timestamp)) > SLACK_MAX_SKEW_S) return { ok: false, reason: 'stale' };
  return { ok: true };
}

/**
 * `nowMs`: our clock. The timestamp must be whole seconds within ±5 minutes of it; the signature must match one
 * of `secrets`. Every secret is compared (no early exit), each comparison on equal-length buffers.
 */
export function verifySlackSignature(opts: {
  secrets: readonly string[];
  timestamp: string | undefined;
  signature: string | undefined;
  body: Buffer;
  nowMs: number;
}): SlackSignatureVerdict {
  const headers = checkSlackHeaders(opts);
  if (!headers.ok) return headers;
  const { timestamp, signature } = opts as { timestamp: string; signature: string };
  const presented = Buffer.from(signature, 'utf8');
  let matched = false;
  for (const secret of opts.secrets) {
    const expected = Buffer.from(slackSignature(secret, timestamp, opts.body), 'utf8');
    // Lengths differ only for a malformed header, which says nothing about the secret.
    if (presented.length === expected.length && timingSafeEqual(presented, expected)) matched = true;
  }
  return matched ? { ok: true } : { ok: false, reason: 'mismatch' };
}
