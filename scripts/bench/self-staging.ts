/**
 * Issue 22 self-served staging figures (BENCH_ONLY=self-staging): a local MP4 staged into the SQLite store's blob
 * table (stage-self.ts, 1 MiB rows) and read back as the `/staged/` route serves it (one row at a time), with this
 * process's peak memory growth over the baseline, sampled every 10 ms: bounded by one row, not the file's size.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkLocalFile } from '../../src/files/confine.js';
import { selfStager } from '../../src/files/stage-self.js';
import { stageRequest } from '../../src/files/staging.js';
import { createLogger } from '../../src/log.js';
import { readBlob } from '../../src/store/blobs.js';
import { openSqliteStore } from '../../src/store/sqlite.js';

const MiB = 1024 * 1024;

export interface SelfStagingRun {
  stageMs: number;
  serveMs: number;
  peakRssGrowthMiB: number;
  peakExternalGrowthMiB: number;
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

export async function selfStagingBench(
  runs: number,
  fileMiB: number,
): Promise<{ fileMiB: number; runs: SelfStagingRun[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'genplat-bench-self-'));
  const store = await openSqliteStore(join(dir, 'state'));
  try {
    const path = join(dir, 'source.mp4');
    await writeMp4(path, fileMiB * MiB);
    const blobs = store.blobs!();
    const stager = selfStager({
      blobs,
      key: () => store.consentKey(),
      base: () => 'https://bench.invalid',
      ttlSeconds: 60,
    });
    const log = createLogger('error', () => {});
    const out: SelfStagingRun[] = [];
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
      const file = await checkLocalFile('video_url', path, 'video', [dir]);
      const t0 = performance.now();
      const files = new Map([['local:x', { source: 'path' as const, field: 'video_url', ...file }]]);
      const staged = await stageRequest({ route: '/x', body: { video_url: 'local:x' } }, files, stager, log);
      const t1 = performance.now();
      const key = String((staged.request.body as { video_url: string }).video_url)
        .split('/staged/')[1]!
        .split('.')[0]!;
      let served = 0;
      for await (const c of readBlob(blobs, key)) served += (c as Buffer).length;
      const t2 = performance.now();
      clearInterval(timer);
      if (served !== file.size) throw new Error(`served ${served} of ${file.size} bytes`);
      await stager.remove(key);
      out.push({
        stageMs: Math.round(t1 - t0),
        serveMs: Math.round(t2 - t1),
        peakRssGrowthMiB: Math.round(((peakRss - base.rss) / MiB) * 10) / 10,
        peakExternalGrowthMiB: Math.round(((peakExt - base.external - base.arrayBuffers) / MiB) * 10) / 10,
      });
    }
    return { fileMiB, runs: out };
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export function selfStagingLines(f: { fileMiB: number; runs: SelfStagingRun[] }): string[] {
  return f.runs.map(
    (r, i) =>
      `self-staging ${f.fileMiB} MiB (SQLite blob rows), run ${i + 1}: stage ${r.stageMs} ms, serve ${r.serveMs} ms; peak growth: RSS +${r.peakRssGrowthMiB} MiB, external+arrayBuffers +${r.peakExternalGrowthMiB} MiB`,
  );
}
