/**
 * The request body read once, as bytes, before the MCP handler (issue 28): Slack's signature is over the raw
 * bytes, and the person a request names (`params._meta`) must be known before a server is built for it. The SDK
 * adapter then reads the same bytes from `replayed` (it accepts any async-iterable request), so it parses and
 * answers exactly as it would have: a malformed body still gets the SDK's own error.
 */
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`Request body exceeds maximum size of ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** The whole body, or BodyTooLargeError past `limit` bytes (checked on the declared length first). */
export async function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(req.headers['content-length']) > limit) throw new BodyTooLargeError(limit);
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    received += b.length;
    if (received > limit) throw new BodyTooLargeError(limit);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

const UTF8 = new TextDecoder();

/** JSON of the body, or undefined when it is not JSON (the SDK answers that itself). */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    // Decoded as the SDK decodes it (TextDecoder drops a leading byte-order mark; Buffer#toString keeps it and
    // JSON.parse then fails): the person read here must be the person of the request the SDK serves.
    return JSON.parse(UTF8.decode(raw));
  } catch {
    return undefined;
  }
}

/** What the SDK adapter reads instead of the consumed stream: the same method, URL, headers and bytes. */
export function replayed(
  req: IncomingMessage,
  raw: Buffer,
  auth: AuthInfo,
): {
  method?: string;
  url?: string;
  headers: IncomingMessage['headers'];
  auth: AuthInfo;
  [Symbol.asyncIterator](): AsyncIterator<Buffer>;
} {
  return {
    ...(req.method !== undefined ? { method: req.method } : {}),
    ...(req.url !== undefined ? { url: req.url } : {}),
    headers: req.headers,
    auth,
    async *[Symbol.asyncIterator]() {
      if (raw.length > 0) yield raw;
    },
  };
}
