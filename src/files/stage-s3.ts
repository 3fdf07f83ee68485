/**
 * Staging in an S3-compatible bucket (issue 22 item 3): the file is streamed up (multipart, 8 MiB parts, 2 in
 * flight: memory stays ~16 MiB whatever the file's size) and the platform gets a presigned GET URL that expires
 * with the object's lifetime. The AWS SDK is imported on the first staging only: the server's cold start does
 * not load it. Credentials come from the SDK's default chain (env, shared profile, instance role); this module
 * never reads, logs or returns them, and the URL it returns carries only a signature.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FilesConfig } from '../config.js';

type Staging = NonNullable<FilesConfig['staging']>;

export interface StagedObject {
  key: string;
  url: string;
}

export interface Stager {
  /**
   * Uploads `body` (exactly `size` bytes of `contentType`) and returns a presigned GET URL for it. `group`: the
   * ledger id of the job it is staged for, so the job's end finds its objects (`removeGroup`) in any process.
   */
  stage(
    body: Readable,
    file: { size: number; contentType: string; ext: string; group?: string | undefined },
  ): Promise<StagedObject>;
  remove(key: string): Promise<void>;
  /**
   * Deletes every object staged for the job `group` (issue 27 item 7: the job is final, the platform has fetched
   * what it needed); returns how many. A stager that deletes on the platform's fetch (stage-self.ts) has none.
   */
  removeGroup?(group: string): Promise<number>;
  /**
   * The POST that names `key` may have been accepted. A stager that can see the platform's fetch (stage-self.ts)
   * deletes the copy once both happened; others wait for the lifetime's end.
   */
  accepted?(key: string): Promise<void>;
  /** Deletes staged objects older than the lifetime (left by a process that stopped before its timers). */
  sweep(now: number): Promise<number>;
  ttlSeconds: number;
}

/** A ledger id as one path segment (ids are UUIDs; anything else is made safe rather than trusted). */
const groupDir = (group: string) => group.replace(/[^A-Za-z0-9-]/g, '_');

/** Multipart part size: S3's minimum is 5 MiB; 8 MiB × 2 in flight bounds memory. */
const PART_BYTES = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

export function s3Stager(cfg: Staging): Stager {
  // One client per stager, made on first use (the dynamic imports cost ~100 ms and ~15 MiB: not at start).
  let sdk:
    | Promise<{
        s3: typeof import('@aws-sdk/client-s3');
        client: import('@aws-sdk/client-s3').S3Client;
        Upload: typeof import('@aws-sdk/lib-storage').Upload;
        sign: typeof import('@aws-sdk/s3-request-presigner').getSignedUrl;
      }>
    | undefined;
  const load = () => {
    sdk ??= (async () => {
      const [s3, storage, presigner] = await Promise.all([
        import('@aws-sdk/client-s3'),
        import('@aws-sdk/lib-storage'),
        import('@aws-sdk/s3-request-presigner'),
      ]);
      const client = new s3.S3Client({
        region: cfg.region,
        ...(cfg.endpoint ? { endpoint: cfg.endpoint } : {}),
        forcePathStyle: cfg.pathStyle,
      });
      return { s3, client, Upload: storage.Upload, sign: presigner.getSignedUrl };
    })();
    return sdk;
  };
  return {
    ttlSeconds: cfg.ttlSeconds,
    async stage(body, file) {
      const { s3, client, Upload, sign } = await load();
      // Unguessable: a random name under the job's ledger id (so its end can find it: the id is in the store, the
      // objects in the bucket, no other list to keep); the file's name and hash never appear in a URL.
      const key = `${cfg.prefix}${file.group ? `${groupDir(file.group)}/` : ''}${randomUUID()}.${file.ext}`;
      await new Upload({
        client,
        // No ContentLength: lib-storage sizes each part itself (a whole-file length on a part would be wrong).
        params: { Bucket: cfg.bucket, Key: key, Body: body, ContentType: file.contentType },
        partSize: PART_BYTES,
        queueSize: PARTS_IN_FLIGHT,
        leavePartsOnError: false,
      }).done();
      const url = await sign(client, new s3.GetObjectCommand({ Bucket: cfg.bucket, Key: key }), {
        expiresIn: cfg.ttlSeconds,
      });
      return { key, url };
    },
    async remove(key) {
      const { s3, client } = await load();
      await client.send(new s3.DeleteObjectCommand({ Bucket: cfg.bucket, Key: key }));
    },
    async removeGroup(group) {
      const { s3, client } = await load();
      let removed = 0;
      let token: string | undefined;
      do {
        const page = await client.send(
          new s3.ListObjectsV2Command({
            Bucket: cfg.bucket,
            Prefix: `${cfg.prefix}${groupDir(group)}/`,
            ContinuationToken: token,
          }),
        );
        for (const o of page.Contents ?? []) {
          if (!o.Key) continue;
          await client.send(new s3.DeleteObjectCommand({ Bucket: cfg.bucket, Key: o.Key }));
          removed++;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return removed;
    },
    async sweep(now) {
      const { s3, client } = await load();
      let removed = 0;
      let token: string | undefined;
      do {
        const page = await client.send(
          new s3.ListObjectsV2Command({ Bucket: cfg.bucket, Prefix: cfg.prefix, ContinuationToken: token }),
        );
        for (const o of page.Contents ?? []) {
          if (o.Key && o.LastModified && now - o.LastModified.getTime() > cfg.ttlSeconds * 1000) {
            await client.send(new s3.DeleteObjectCommand({ Bucket: cfg.bucket, Key: o.Key }));
            removed++;
          }
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return removed;
    },
  };
}
