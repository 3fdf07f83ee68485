/**
 * Admission latency: `store.admit` through the real store (the one transaction every paid call makes: both
 * ceilings, the duplicate rule, the nonce, the intent's insert), timed call by call, one after another, on
 * SQLite (a temp state dir) and on PostgreSQL (a throw-away database). Each intent is distinct and carries a
 * nonce, so every admit does the full work and is admitted; the store grows as it would over a busy day.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluateAdmission } from '../../src/paid/admission.js';
import { talkingVideoEstimate } from '../../src/paid/pricing/estimate.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createBenchDatabase } from './pg-database.js';
import { percentile, round } from './stdio.js';

export interface AdmissionFigures {
  admits: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

export type AdmissionResult = { sqlite: AdmissionFigures; postgres: AdmissionFigures | { skipped: string } };

async function measure(store: Store, admits: number): Promise<AdmissionFigures> {
  const dayStart = new Date(new Date().toISOString().slice(0, 10));
  const times: number[] = [];
  for (let i = 0; i < admits; i++) {
    const fingerprint = `bench-${i}`;
    const t0 = performance.now();
    const r = await store.admit(
      {
        tool: 'create_talking_video',
        kind: 'actor_video',
        fingerprint,
        summary: `bench admission ${i}`,
        estimate: talkingVideoEstimate(),
        consent: 'token',
        owner: undefined,
      },
      {
        maxCreditsPerCall: 2_000,
        maxCreditsPerDay: 1_000_000_000,
        dayStart,
        duplicate: { fingerprint, owner: undefined },
        nonce: { value: randomBytes(16).toString('hex'), expiresAt: new Date(Date.now() + 600_000) },
      },
      evaluateAdmission,
    );
    times.push(performance.now() - t0);
    if (!r.admitted) throw new Error(`admit ${i} was refused (${r.reason}): the bench's intents must all pass`);
  }
  return {
    admits,
    p50Ms: round(percentile(times, 50)),
    p95Ms: round(percentile(times, 95)),
    maxMs: round(Math.max(...times)),
  };
}

export async function admission(admits: number): Promise<AdmissionResult> {
  const dir = await mkdtemp(join(tmpdir(), 'genplat-bench-admit-'));
  let sqlite: AdmissionFigures;
  try {
    const store = await openStore({ stateDir: dir });
    try {
      sqlite = await measure(store, admits);
    } finally {
      await store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  let db: Awaited<ReturnType<typeof createBenchDatabase>>;
  try {
    db = await createBenchDatabase();
  } catch (err) {
    return { sqlite, postgres: { skipped: `no PostgreSQL server: ${(err as Error).message}` } };
  }
  try {
    const store = await openStore({ stateDir: dir, databaseUrl: db.url });
    try {
      return { sqlite, postgres: await measure(store, admits) };
    } finally {
      await store.close();
    }
  } finally {
    await db.drop();
  }
}
