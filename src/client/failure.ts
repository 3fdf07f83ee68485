/**
 * Turns what `fetch` threw into our error family. The one question that matters for a paid POST is
 * whether the request may have reached the server (`sent`): a refused connection or a failed DNS lookup
 * means it certainly did not; anything after the socket was open means it may have.
 */
import { ConnectionError, PlatformError, TimeoutError } from '../errors.js';

/** Codes that mean no byte of the request reached the server. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  // The dispatcher was closed (shutdown) before this request was written.
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);
/** undici's own header/body timeouts (we disable them on our Agent, but an injected dispatcher may set them). */
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Walks `err.cause` (fetch wraps the socket error in `TypeError: fetch failed`) for a Node/undici code. */
function errorCode(err: unknown): string | undefined {
  let cur: unknown = err;
  for (let depth = 0; depth < 5 && cur && typeof cur === 'object'; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Classifies a transport failure. The detail is the error code only: socket messages can quote the
 * URL, and although the key is never in the URL, codes are all a user needs.
 */
export function classifyTransportError(err: unknown, requestId: string, timeoutMs: number): PlatformError {
  if (err instanceof PlatformError) return err;
  const code = errorCode(err);
  if (code && TIMEOUTS.has(code)) return new TimeoutError(timeoutMs, requestId);
  if (code && NOT_SENT.has(code)) return new ConnectionError(code, false, requestId);
  // UND_ERR_SOCKET ("other side closed"), ECONNRESET, EPIPE and anything unrecognised: the request may
  // have been written, so assume it was (never guess in the direction that could double-charge).
  return new ConnectionError(code ?? 'connection failed', true, requestId);
}

/** An error that says the caller cancelled: the caller's own reason, or a standard AbortError. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException('The operation was aborted.', 'AbortError');
}
