/**
 * `/upload/<id>.<MAC>` (uploads.ts): GET = the upload page, PUT (or POST) = the file's bytes, OPTIONS = the
 * CORS preflight of the App View's upload panel (the link itself is the capability: no cookie, no token).
 *
 * The PUT is checked in this order, and each refusal before the claim leaves the link usable:
 * MAC (403) → link pending and unexpired (410) → declared size ≤ the kind's cap (413) → the first bytes sniff as
 * the link's kind (415; nothing stored) → the single-use claim in the store (410 when already used) → the bytes
 * stream into the blob table in 1 MiB rows, the cap enforced while they arrive (413, all rows deleted) → the
 * upload is recorded complete (sha256, size, sniffed type) and answered as `upload:<id>`. No byte of the file
 * is ever logged.
 *
 * Outside the MCP endpoint's limits, so bounded here (issue 27 item 6): at most `maxInFlightPerCaller` bodies
 * of one caller (the link's owner) at once on this instance (429 beyond), and a body that sends nothing for
 * `idleTimeoutMs` has its connection closed and what it stored deleted (before the claim the link stays usable).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import { type BlobStore, TooLargeError, writeChunks } from '../store/blobs.js';
import type { ExtraRoute } from '../transports/http.js';
import { DEFAULT_UPLOAD_LIMITS, MAX_LOCAL_BYTES, type UploadLimits } from './limits.js';
import type { MediaKind } from './media-ref.js';
import { SNIFF_BYTES, sniffAs } from './sniff.js';
import { closedPage, uploadPage } from './upload-page.js';
import { safeFilename, UPLOAD_KEEP_MS, UPLOAD_PREFIX, uploadIdOf } from './uploads.js';

export interface UploadRouteDeps {
  blobs: BlobStore;
  key: () => Promise<Buffer>;
  log: Logger;
  now?: () => number;
  /** GENPLAT_UPLOAD_* (default DEFAULT_UPLOAD_LIMITS). */
  limits?: UploadLimits | undefined;
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'PUT, POST',
  'access-control-allow-headers': 'content-type, x-filename',
  'access-control-max-age': '600',
};

/** Writes a JSON answer; true = the route answered (so a refusal reads `return json(…)`). */
function json(res: ServerResponse, status: number, body: Record<string, unknown>): true {
  if (res.headersSent) return true;
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...CORS });
  res.end(JSON.stringify(body));
  return true;
}

function page(res: ServerResponse, status: number, p: { html: string; csp: string }): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': p.csp,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
  res.end(p.html);
}

const USED = 'This upload link was already used or has expired. Ask your assistant for a new one (request_upload).';

/** The body went quiet for longer than the idle timeout; its connection has been closed. */
class IdleBodyError extends Error {}

/**
 * The request body one chunk at a time, each wait bounded by `idleMs`: past it the request is destroyed (the
 * socket closes, so the client sees it) and the wait rejects with `IdleBodyError`. Only the wait for the client
 * runs the clock, never our own writes to the store between chunks.
 */
function idleBody(req: IncomingMessage, idleMs: number): AsyncIterator<Buffer> {
  const it = req[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return {
    next() {
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          req.destroy();
          reject(new IdleBodyError(`no byte for ${idleMs} ms`));
        }, idleMs);
      });
      return Promise.race([it.next(), idle]).finally(() => clearTimeout(timer));
    },
  };
}

/** Reads until `n` bytes (or the end): the head to sniff, and an iterator over the rest of the body. */
async function head(it: AsyncIterator<Buffer>, n: number) {
  const parts: Buffer[] = [];
  let got = 0;
  while (got < n) {
    const r = await it.next();
    if (r.done) break;
    parts.push(r.value);
    got += r.value.length;
  }
  const rest: AsyncIterable<Buffer> = { [Symbol.asyncIterator]: () => it };
  return { first: Buffer.concat(parts), rest };
}

export function uploadRoute(deps: UploadRouteDeps): ExtraRoute {
  const now = deps.now ?? Date.now;
  const { blobs, log } = deps;
  const limits = deps.limits ?? DEFAULT_UPLOAD_LIMITS;
  // Bodies being received per caller (the link's owner) on this instance.
  const busy = new Map<string, number>();
  return async (req, res, path) => {
    if (!path.startsWith(UPLOAD_PREFIX)) return false;
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS);
      res.end();
      return true;
    }
    const id = uploadIdOf(path, await deps.key());
    const row = id ? await blobs.get(id) : undefined;
    const open = row !== undefined && row.purpose === 'upload' && row.state === 'pending' && row.expiresAt > now();
    if (req.method === 'GET') {
      if (!id) page(res, 403, closedPage('This is not an upload link of this server.'));
      else if (!open || !row) page(res, 410, closedPage(USED));
      else {
        const kind = row.kind as MediaKind;
        page(
          res,
          200,
          uploadPage({ kind, maxBytes: MAX_LOCAL_BYTES[kind], expiresAt: row.expiresAt, filename: row.filename ?? '' }),
        );
      }
      return true;
    }
    if (req.method !== 'PUT' && req.method !== 'POST') {
      res.writeHead(405, { allow: 'GET, PUT, POST, OPTIONS' });
      res.end();
      return true;
    }
    if (!id) return json(res, 403, { error: 'not an upload link of this server' });
    if (!open || !row) return json(res, 410, { error: USED });
    const owner = row.owner ?? '';
    const mine = busy.get(owner) ?? 0;
    if (mine >= limits.maxInFlightPerCaller) {
      res.setHeader('connection', 'close');
      res.setHeader('retry-after', '5');
      return json(res, 429, {
        error: `${limits.maxInFlightPerCaller} uploads of yours are already in progress; wait for one to finish, then send this file again (the link is still usable)`,
      });
    }
    busy.set(owner, mine + 1);
    try {
      return await receive(req, res, id, row, limits.idleTimeoutMs);
    } finally {
      const left = (busy.get(owner) ?? 1) - 1;
      if (left > 0) busy.set(owner, left);
      else busy.delete(owner);
    }
  };

  async function receive(
    req: IncomingMessage,
    res: ServerResponse,
    id: string,
    row: NonNullable<Awaited<ReturnType<BlobStore['get']>>>,
    idleMs: number,
  ): Promise<true> {
    const kind = row.kind as MediaKind;
    const max = MAX_LOCAL_BYTES[kind];
    if (Number(req.headers['content-length'] ?? 0) > max) {
      res.setHeader('connection', 'close');
      return json(res, 413, { error: `larger than the ${kind} limit of ${max} bytes; nothing was stored` });
    }
    const body = idleBody(req, idleMs);
    let sniffHead: Awaited<ReturnType<typeof head>>;
    try {
      sniffHead = await head(body, SNIFF_BYTES);
    } catch (err) {
      if (!(err instanceof IdleBodyError)) throw err;
      // Nothing claimed or stored: the link stays usable. The connection is gone, so there is no one to answer.
      log.info('upload closed: the body stalled before its first bytes', { id });
      return true;
    }
    const { first, rest } = sniffHead;
    const sniffed = sniffAs(kind, first);
    if (!sniffed) {
      res.setHeader('connection', 'close');
      return json(res, 415, { error: `the file's bytes are not a supported ${kind} type; nothing was stored` });
    }
    // The link's single use: exactly one request moves it out of `pending`.
    if (!(await blobs.claim(id, now()))) return json(res, 410, { error: USED });
    try {
      const { size, sha256 } = await writeChunks(blobs, id, rest, max, first);
      await blobs.complete(id, { size, sha256, contentType: sniffed.type, expiresAt: now() + UPLOAD_KEEP_MS });
      log.info('upload received', { id, kind, size, type: sniffed.type });
      // The file's own name is only shown back on the page; the stored name stays the link's hint.
      const filename = safeFilename(decodeName(req.headers['x-filename']), row.filename ?? 'upload');
      json(res, 200, { reference: `upload:${id}`, size, sha256, content_type: sniffed.type, filename });
    } catch (err) {
      await blobs.remove(id).catch(() => undefined);
      if (err instanceof IdleBodyError) {
        log.info('upload closed: the body stalled; what it stored was deleted', { id, idle_ms: idleMs });
      } else if (err instanceof TooLargeError) {
        res.setHeader('connection', 'close');
        json(res, 413, { error: `larger than the ${kind} limit of ${max} bytes; nothing was stored` });
      } else {
        log.warn('upload failed', { id, error: String(err) });
        json(res, 500, { error: 'the upload could not be stored; ask for a new link' });
      }
    }
    return true;
  }
}

function decodeName(h: string | string[] | undefined): string | undefined {
  if (typeof h !== 'string') return undefined;
  try {
    return decodeURIComponent(h);
  } catch {
    return undefined;
  }
}
