/**
 * The seam for `upload:<id>` references (issue 22 item 4, built next): a file a person uploaded through the
 * server's `request_upload` page. The upload work implements `UploadSource` over the shared store; until then
 * `NO_UPLOADS` knows none, so a reference is refused by name before anything is priced or sent.
 */
import type { Readable } from 'node:stream';

export interface UploadedFile {
  sha256: string;
  size: number;
  contentType: string;
  filename: string;
  /** A fresh stream of exactly the uploaded bytes (staging reads it once). */
  open(): Readable;
}

export interface UploadSource {
  /** The upload `id` if it exists, is complete and belongs to `owner` (HTTP caller; undefined on stdio). */
  open(id: string, owner: string | undefined): Promise<UploadedFile | undefined>;
}

export const NO_UPLOADS: UploadSource = {
  open: async () => undefined,
};
