/**
 * Per-caller rate limiting and the bounded body reader for the HTTP transport.
 */
import type { IncomingMessage } from 'node:http';

/** 1 MiB: the largest real request (a tool call with a long script or prompt) is a few KiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** How much of an oversized body is read and discarded so the client sees the 413 instead of a reset. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * A fixed one-minute window per key. Coarser than a token bucket, but a burst of at most 2× the limit at a
 * window edge is harmless here: the limit exists to stop runaway loops, not to shape traffic.
 */
export function createRateLimiter(perMinute: number, now: () => number) {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    /** Counts one request; returns 0 when allowed, else the seconds until the window resets (Retry-After). */
    take(key: string): number {
      const t = now();
      let w = windows.get(key);
      if (!w || t - w.start >= 60_000) {
        // Forget finished windows so one-off keys (failed-auth addresses) do not accumulate.
        if (windows.size > 10_000) for (const [k, v] of windows) if (t - v.start >= 60_000) windows.delete(k);
        w = { start: t, count: 0 };
        windows.set(key, w);
      }
      w.count++;
      if (w.count <= perMinute) return 0;
      return Math.max(1, Math.ceil((w.start + 60_000 - t) / 1000));
    },
  };
}

export class BodyTooLargeError extends Error {}

/**
 * Reads the whole body, at most `limit` bytes.
 * @throws BodyTooLargeError past the limit (declared or streamed); the rest is drained in the background so
 *   the 413 reaches the client, and the socket is dropped if a client keeps sending far beyond it.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    drain(req, 0);
    return Promise.reject(new BodyTooLargeError());
  }
  // Listeners, not `for await`: leaving an async iterator early destroys the socket, and the 413 with it.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData);
      req.off('end', onEnd);
      drain(req, size);
      reject(new BodyTooLargeError());
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', reject);
  });
}

function drain(req: IncomingMessage, already: number): void {
  let seen = already;
  req.on('data', (c: Buffer) => {
    seen += c.length;
    if (seen > DRAIN_LIMIT_BYTES) req.destroy();
  });
  req.on('error', () => {});
  req.resume();
}
