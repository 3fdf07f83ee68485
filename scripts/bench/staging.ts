/**
 * Issue 22 closing figures (BENCH_ONLY=staging): staging a 50 MB local MP4 into an S3-compatible bucket (s3rver on
 * loopback, in a child process so its own buffers are not counted), and this process's memory while it streams.
 * Printed per run: check + hash time (confine.ts), upload + presign time (stage-s3.ts), and the peak RSS /
 * external+arrayBuffers growth over the baseline, sampled every 10 ms: bounded by the multipart window, not the
 * file's size. Includes the AWS SDK's first (lazy) load in run 1.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkLocalFile } from '../../src/files/confine.js';
import { s3Stager } from '../../src/files/stage-s3.js';
import { stageRequest } from '../../src/files/staging.js';
import { createLogger } from '../../src/log.js';

export interface StagingRun {
  checkMs: number;
  stageMs: number;
  peakRssGrowthMiB: number;
  peakExternalGrowthMiB: number;
}

export interface StagingFigures {
  fileMiB: number;
  runs: StagingRun[];
}

const MiB = 1024 * 1024;

const S3_CHILD = `
import S3rver from 's3rver';
const s = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: process.argv[1], configureBuckets: [{ name: 'bench', configs: [] }] });
const { port } = await s.run();
process.stdout.write(port + '\\n');
`;

async function startS3Child(dir: string): Promise<{ child: ChildProcess; endpoint: string }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', S3_CHILD, dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`s3rver exited ${code}`)));
  });
  return { child, endpoint: `http://127.0.0.1:${port}` };
}

async function writeMp4(path: string, size: number): Promise<void> {
  const head = Buffer.alloc(24);
  head.writeUInt32BE(24, 0);
  head.write('ftypisom', 4);
  head.write('isommp41', 16);
  const out = createWriteStream(path);
  out.write(head);
  const chunk = Buffer.alloc(MiB, 7);
  let left = size - head.length;
  while (left > 0) {
    const c = chunk.subarray(0, Math.min(chunk.length, left));
    left -= c.length;
    if (!out.write(c)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(r));
}

export async function stagingBench(runs = 3, fileMiB = 50): Promise<StagingFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'genplat-bench-staging-'));
  const s3dir = await mkdtemp(join(tmpdir(), 'genplat-bench-s3-'));
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  const { child, endpoint } = await startS3Child(s3dir);
  try {
    const path = join(dir, 'source.mp4');
    await writeMp4(path, fileMiB * MiB);
    const stager = s3Stager({
      bucket: 'bench',
      endpoint,
      region: 'us-east-1',
      prefix: 'b/',
      pathStyle: true,
      ttlSeconds: 60,
    });
    const log = createLogger('error', () => {});
    const out: StagingRun[] = [];
    for (let i = 0; i < runs; i++) {
      globalThis.gc?.();
      const base = process.memoryUsage();
      let peakRss = base.rss;
      let peakExt = base.external + base.arrayBuffers;
      const timer = setInterval(() => {
        const m = process.memoryUsage();
        peakRss = Math.max(peakRss, m.rss);
        peakExt = Math.max(peakExt, m.external + m.arrayBuffers);
      }, 10);
      const t0 = performance.now();
      const file = await checkLocalFile('video_url', path, 'video', [dir]);
      const t1 = performance.now();
      const files = new Map([['local:x', { source: 'path' as const, field: 'video_url', ...file }]]);
      const staged = await stageRequest({ route: '/x', body: { video_url: 'local:x' } }, files, stager, log);
      const t2 = performance.now();
      clearInterval(timer);
      staged.release(false);
      out.push({
        checkMs: Math.round(t1 - t0),
        stageMs: Math.round(t2 - t1),
        peakRssGrowthMiB: Math.round(((peakRss - base.rss) / MiB) * 10) / 10,
        peakExternalGrowthMiB: Math.round(((peakExt - base.external - base.arrayBuffers) / MiB) * 10) / 10,
      });
    }
    return { fileMiB, runs: out };
  } finally {
    child.kill();
    for (const [k, v] of [
      ['AWS_ACCESS_KEY_ID', saved.id],
      ['AWS_SECRET_ACCESS_KEY', saved.secret],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await rm(dir, { recursive: true, force: true });
    await rm(s3dir, { recursive: true, force: true });
  }
}

export function stagingLines(f: StagingFigures): string[] {
  return f.runs.map(
    (r, i) =>
      `staging ${f.fileMiB} MiB, run ${i + 1}: check+hash ${r.checkMs} ms, upload+presign ${r.stageMs} ms; peak growth while streaming: RSS +${r.peakRssGrowthMiB} MiB, external+arrayBuffers +${r.peakExternalGrowthMiB} MiB`,
  );
}
