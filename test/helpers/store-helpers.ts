/** Shared fixtures for tests on a real (SQLite) store: temp state dirs and record builders. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { estimate } from '../../src/jobs/envelope.js';
import type { JobStore, NewJobRecord } from '../../src/jobs/store.js';
import { openSqliteStore, type SqliteStoreOptions } from '../../src/store/sqlite.js';

export function newRecord(overrides: Partial<NewJobRecord> = {}): NewJobRecord {
  return {
    tool: 'create_talking_video',
    kind: 'actor_video',
    fingerprint: 'fp-1',
    summary: 'talking video, avatar a1',
    estimate: estimate(100, 'fixed price'),
    consent: 'token',
    owner: undefined,
    ...overrides,
  };
}

export interface TestDir {
  dir: string;
  open(options?: SqliteStoreOptions): Promise<JobStore>;
  cleanup(): Promise<void>;
}

/** A fresh state dir; every store opened through it is closed by `cleanup`. */
export async function testDir(): Promise<TestDir> {
  const dir = await mkdtemp(join(tmpdir(), 'genplat-store-'));
  const opened: JobStore[] = [];
  return {
    dir,
    async open(options) {
      const s = await openSqliteStore(dir, options);
      opened.push(s);
      return s;
    },
    async cleanup() {
      for (const s of opened) await s.close().catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
