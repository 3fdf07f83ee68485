/**
 * Files kept in the store itself (issue 22): a person's uploads (`request_upload`) and, in HTTP mode without a
 * bucket, the staged copies the platform fetches from `/staged/…`. In the shared store, so any instance of a
 * fleet can receive, stage and serve them. The bytes are rows of at most `CHUNK_BYTES` (`blob_chunks`): writing
 * and serving hold one chunk at a time, whatever the file's size.
 *
 * States of an upload row: `pending` (a link was handed out, nothing received; the link's single use is the
 * atomic `pending → receiving` claim), `receiving`, `complete`. A staged row is written `receiving` and
 * `complete` by the stager. Every row has an expiry; `sweep` deletes rows past it with their chunks.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

/** 1 MiB: large enough that a 200 MiB video is 200 rows, small enough that a served chunk is cheap to hold. */
export const CHUNK_BYTES = 1024 * 1024;

export type BlobPurpose = 'upload' | 'staged';
export type BlobState = 'pending' | 'receiving' | 'complete';

export interface BlobRow {
  id: string;
  purpose: BlobPurpose;
  /** The caller an upload belongs to (HTTP owner); null for staged copies. */
  owner: string | null;
  /** Upload links: the media kind the link accepts (image / audio / video). */
  kind: string | null;
  state: BlobState;
  contentType: string | null;
  filename: string | null;
  size: number | null;
  sha256: string | null;
  createdAt: number;
  expiresAt: number;
  /** Staged copies: the job was accepted / the platform fetched it all (deleted when both). */
  accepted: boolean;
  fetched: boolean;
}

export type NewBlob = Pick<BlobRow, 'id' | 'purpose' | 'owner' | 'kind' | 'state' | 'filename' | 'expiresAt'> & {
  contentType?: string | null;
};

export interface BlobStore {
  create(row: NewBlob, now: number): Promise<void>;
  get(id: string): Promise<BlobRow | undefined>;
  /** How many upload links of `owner` are still `pending` and unexpired at `now` (the per-caller cap). */
  pendingUploads(owner: string, now: number): Promise<number>;
  /** Atomically `pending → receiving` while unexpired: true for exactly one caller (the link's single use). */
  claim(id: string, now: number): Promise<boolean>;
  putChunk(id: string, n: number, bytes: Buffer): Promise<void>;
  chunk(id: string, n: number): Promise<Buffer | undefined>;
  /** Marks the bytes written; `expiresAt` = how long the complete file is kept. */
  complete(id: string, facts: { size: number; sha256: string; contentType: string; expiresAt: number }): Promise<void>;
  /** Sets the flag and answers whether the other one was already set (then the caller removes the row). */
  markAccepted(id: string): Promise<boolean>;
  markFetched(id: string): Promise<boolean>;
  remove(id: string): Promise<void>;
  /** Deletes rows whose expiry is before `now` (and their chunks); returns how many. */
  sweep(now: number): Promise<number>;
}

/**
 * Writes `body` as chunks of `id`, hashing as it goes; refuses (throws `TooLargeError`, chunks removed by the
 * caller) past `maxBytes`. Holds at most one chunk plus one incoming buffer.
 */
export async function writeChunks(
  blobs: BlobStore,
  id: string,
  body: AsyncIterable<Buffer | Uint8Array> | Iterable<Buffer | Uint8Array>,
  maxBytes: number,
  first?: Buffer,
): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let size = 0;
  let n = 0;
  const flush = async (all: boolean) => {
    while (pendingBytes >= CHUNK_BYTES || (all && pendingBytes > 0)) {
      const joined = Buffer.concat(pending);
      const part = joined.subarray(0, CHUNK_BYTES);
      await blobs.putChunk(id, n++, Buffer.from(part));
      const rest = joined.subarray(part.length);
      pending = rest.length > 0 ? [Buffer.from(rest)] : [];
      pendingBytes = rest.length;
    }
  };
  const take = async (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) throw new TooLargeError(maxBytes);
    hash.update(chunk);
    pending.push(chunk);
    pendingBytes += chunk.length;
    await flush(false);
  };
  if (first && first.length > 0) await take(first);
  for await (const c of body) await take(Buffer.from(c));
  await flush(true);
  return { size, sha256: hash.digest('hex') };
}

/** A stream of a complete blob's bytes, read one chunk row at a time. */
export function readBlob(blobs: BlobStore, id: string): Readable {
  let n = 0;
  return Readable.from(
    (async function* () {
      for (;;) {
        const c = await blobs.chunk(id, n++);
        if (!c) return;
        yield c;
      }
    })(),
    { objectMode: false },
  );
}

export class TooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`larger than ${maxBytes} bytes`);
  }
}
