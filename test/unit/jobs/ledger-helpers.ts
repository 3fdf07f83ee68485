/** Shared fixtures for the ledger tests: temp state dirs, record builders and a warning recorder. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { estimate } from '../../../src/jobs/envelope.js';
import { type LedgerOptions, openLedger } from '../../../src/jobs/ledger.js';
import type { JobStore, NewJobRecord } from '../../../src/jobs/store.js';

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
  warnings: string[];
  open(options?: LedgerOptions): Promise<JobStore>;
  cleanup(): Promise<void>;
}

/** A fresh state dir; every ledger opened through it is closed by `cleanup`. */
export async function testDir(): Promise<TestDir> {
  const base = await mkdtemp(join(tmpdir(), 'genplat-ledger-'));
  const dir = join(base, 'state');
  const opened: JobStore[] = [];
  const warnings: string[] = [];
  return {
    dir,
    warnings,
    async open(options = {}) {
      const store = await openLedger(dir, { log: { warn: (m) => warnings.push(m) }, ...options });
      opened.push(store);
      return store;
    },
    async cleanup() {
      await Promise.allSettled(opened.map((s) => s.close()));
      await rm(base, { recursive: true, force: true });
    },
  };
}
