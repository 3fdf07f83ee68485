/**
 * HTTP mode's file services from the config (file-services.ts): which stager (a configured bucket wins; else,
 * with GENPLAT_PUBLIC_URL, the self stager; else none: local references are refused unsent), where upload links
 * point (GENPLAT_PUBLIC_URL, else this server's own listening origin), and the sweep of expired files.
 */
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { BlobStore } from '../store/blobs.js';
import type { FileServices } from './file-services.js';
import { DEFAULT_UPLOAD_LIMITS } from './limits.js';
import { selfStager } from './stage-self.js';
import { createUploadLink, storeUploads } from './uploads.js';

/** Expired uploads and staged copies are deleted this often (and once at start), by whichever instance runs. */
export const SWEEP_EVERY_MS = 10 * 60 * 1000;
/** The self stager's lifetime when no bucket setting gives one: GENPLAT_STAGING_TTL_S's default, 1 hour. */
const DEFAULT_STAGED_TTL_S = 3600;

export function fileServices(
  config: Config,
  blobs: BlobStore,
  key: () => Promise<Buffer>,
  ownOrigin: () => string,
  o: {
    now: () => number;
    loopbackStaging?: boolean | undefined;
    /** The loopback origin staged files are served at (default `ownOrigin`): the sandbox's is 127.0.0.1. */
    loopbackOrigin?: (() => string) | undefined;
    uploadLinkTtlMs?: number | undefined;
  },
): FileServices {
  const publicUrl = config.publicUrl;
  // The platform must reach the staged URL: only a public base will do. A loopback one is for tests and for the
  // sandbox, whose simulator fetches from this server's loopback origin (src/sim/sandbox.ts).
  const stagingBase = publicUrl ? () => publicUrl : o.loopbackStaging ? (o.loopbackOrigin ?? ownOrigin) : undefined;
  return {
    uploads: storeUploads(blobs, o.now),
    selfStager:
      config.files.staging || !stagingBase
        ? undefined
        : selfStager({
            blobs,
            key,
            base: stagingBase,
            ttlSeconds: config.files.stagedTtlSeconds ?? DEFAULT_STAGED_TTL_S,
            now: o.now,
          }),
    uploadOrigin: () => new URL(config.publicUrl ?? ownOrigin()).origin,
    async uploadLink(owner, kind, filename) {
      return createUploadLink(
        {
          blobs,
          key: await key(),
          base: config.publicUrl ?? ownOrigin(),
          now: o.now(),
          ttlMs: o.uploadLinkTtlMs,
          maxPending: (config.files.uploadLimits ?? DEFAULT_UPLOAD_LIMITS).maxPendingPerCaller,
        },
        owner,
        kind,
        filename,
      );
    },
  };
}

/** Starts the periodic sweep; returns its stop. A failed sweep is retried at the next tick. */
export function sweepBlobs(blobs: BlobStore, now: () => number, log: Logger): () => void {
  const run = () =>
    blobs
      .sweep(now())
      .then((n) => n > 0 && log.info('expired uploads and staged files deleted', { count: n }))
      .catch((err) => log.warn('sweeping expired files failed; retried later', { error: String(err) }));
  void run();
  const timer = setInterval(run, SWEEP_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
