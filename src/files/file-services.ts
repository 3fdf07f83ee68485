/**
 * What HTTP mode adds for files (issue 22): the store-backed `upload:<id>` source, the self stager (with
 * GENPLAT_PUBLIC_URL and no bucket) and the maker of `request_upload` links. Built once per process by
 * src/transports/http-main.ts and handed to every per-request server; on stdio only `--sandbox` has them (its
 * loopback staging, src/files/sandbox-staging.ts; local paths instead of uploads).
 */

import type { MediaKind } from './media-ref.js';
import type { Stager } from './stage-s3.js';
import type { UploadSource } from './upload-source.js';
import type { UploadLink } from './uploads.js';

export interface FileServices {
  uploads: UploadSource;
  /** Stages into the shared store and serves `/staged/…`; undefined without a public base (or with a bucket). */
  selfStager: Stager | undefined;
  uploadLink(owner: string, kind: MediaKind, filename: string | undefined): Promise<UploadLink>;
  /** The origin upload links point at (the App View's upload panel may connect there). */
  uploadOrigin(): string;
}
