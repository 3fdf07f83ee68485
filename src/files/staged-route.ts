/**
 * `GET /staged/<id>.<MAC>` (stage-self.ts): serves a staged file from the shared store to the platform, one 1 MiB
 * row at a time. No bearer token: the MAC authenticates the URL we handed out. A URL whose MAC is not ours is 403
 * (nothing is read); an unknown, unfinished or expired file is 404, with no body that says which.
 * After the last byte of a full GET, the copy is deleted if its job was accepted (else when it is).
 */
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '../log.js';
import { type BlobStore, readBlob } from '../store/blobs.js';
import type { ExtraRoute } from '../transports/http.js';
import { STAGED_PREFIX, stagedIdOf } from './stage-self.js';

export interface StagedRouteDeps {
  blobs: BlobStore;
  key: () => Promise<Buffer>;
  log: Logger;
  now?: () => number;
}

function answer(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'cache-control': 'no-store', ...headers });
  res.end();
}

export function stagedRoute(deps: StagedRouteDeps): ExtraRoute {
  const now = deps.now ?? Date.now;
  return async (req, res, path) => {
    if (!path.startsWith(STAGED_PREFIX)) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      answer(res, 405, { allow: 'GET, HEAD' });
      return true;
    }
    const id = stagedIdOf(path, await deps.key());
    if (!id) {
      answer(res, 403);
      return true;
    }
    const row = await deps.blobs.get(id);
    if (row?.purpose !== 'staged' || row.state !== 'complete' || row.expiresAt <= now()) {
      answer(res, 404);
      return true;
    }
    res.writeHead(200, {
      'content-type': row.contentType ?? 'application/octet-stream',
      'content-length': String(row.size ?? 0),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    if (req.method === 'HEAD') {
      res.end();
      return true;
    }
    try {
      await pipeline(readBlob(deps.blobs, id), res);
    } catch (err) {
      // The platform's fetch broke off: the copy stays for a retry until its expiry.
      deps.log.debug('a staged file was not served to the end', { error: String(err) });
      return true;
    }
    if (await deps.blobs.markFetched(id).catch(() => false)) {
      await deps.blobs
        .remove(id)
        .catch((e) => deps.log.warn('a staged file could not be deleted; sweep retries', { error: String(e) }));
    }
    return true;
  };
}
