/**
 * A real S3-compatible server on loopback for the staging tests (s3rver, devDependency), with credentials in the
 * AWS SDK's default chain (env) as an operator would set them. Never a mock of the client.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

export const S3_SECRET = 'S3RVER';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** Keys currently in the bucket. */
  keys(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startS3(bucket = 'staging'): Promise<TestS3> {
  const dir = mkdtempSync(join(tmpdir(), 'genplat-s3-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: dir,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  // s3rver's fixed credentials, through the standard environment variables (the SDK's default chain).
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = S3_SECRET;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true });
  return {
    endpoint,
    bucket,
    async keys() {
      const out = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      return (out.Contents ?? []).map((o) => o.Key ?? '');
    },
    async close() {
      client.destroy();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
      for (const [k, v] of [
        ['AWS_ACCESS_KEY_ID', saved.id],
        ['AWS_SECRET_ACCESS_KEY', saved.secret],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    },
  };
}
