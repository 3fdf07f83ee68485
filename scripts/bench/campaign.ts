/**
 * Campaign admission (issue 21): `store.admitBundle` of a 50-item campaign (the maximum) through the real
 * store — one transaction: the facts once, the duplicate fact for the campaign and for each item, the campaign
 * rule, the nonce, 50 inserts with their audit rows — timed run after run on SQLite (a temp state dir) and on
 * PostgreSQL (a throw-away database). Every campaign is distinct and admitted; the store grows as it runs.
 * `BENCH_ONLY=campaign npm run bench` prints it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluateCampaignAdmission } from '../../src/paid/admission.js';
import { talkingVideoEstimate } from '../../src/paid/pricing/estimate.js';
import { openStore, type Store } from '../../src/store/index.js';
import type { BundleItem } from '../../src/store/types.js';
import { createBenchDatabase } from './pg-database.js';
import { percentile, round } from './stdio.js';

export interface CampaignAdmissionFigures {
  campaigns: number;
  items: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

function campaign(run: number, items: number): BundleItem[] {
  const id = `bench-campaign-${run}`;
  return Array.from({ length: items }, (_, index) => ({
    outcome: 'queued' as const,
    tool: 'create_talking_video',
    kind: 'actor_video',
    fingerprint: `${id}-item-${index}`,
    summary: `bench item ${index}`,
    estimate: talkingVideoEstimate(),
    consent: 'token',
    owner: undefined,
    campaign: {
      id,
      fingerprint: `${id}-fp`,
      index,
      total: items,
      input: { avatar_id: 'av_ava', voice_script: `item ${index}` },
      request: { route: '/video/generate', body: { avatar_id: 'av_ava', voice_script: `item ${index}` } },
      varied: { index },
      sendBy: new Date(Date.now() + 600_000).toISOString(),
    },
  }));
}

async function measure(store: Store, runs: number, items: number): Promise<CampaignAdmissionFigures> {
  const dayStart = new Date(new Date().toISOString().slice(0, 10));
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const intents = campaign(run, items);
    const t0 = performance.now();
    const r = await store.admitBundle(
      intents,
      {
        maxCreditsPerCall: 2_000,
        maxCreditsPerDay: 1_000_000_000,
        dayStart,
        duplicate: { fingerprint: `bench-campaign-${run}-fp`, owner: undefined },
        nonce: { value: randomBytes(16).toString('hex'), expiresAt: new Date(Date.now() + 600_000) },
      },
      evaluateCampaignAdmission,
    );
    times.push(performance.now() - t0);
    if (!r.admitted) throw new Error(`campaign ${run} was refused (${r.reason}): the bench's campaigns must all pass`);
  }
  return {
    campaigns: runs,
    items,
    p50Ms: round(percentile(times, 50)),
    p95Ms: round(percentile(times, 95)),
    maxMs: round(Math.max(...times)),
  };
}

export async function campaignAdmission(
  runs = 20,
  items = 50,
): Promise<{ sqlite: CampaignAdmissionFigures; postgres: CampaignAdmissionFigures | { skipped: string } }> {
  const dir = await mkdtemp(join(tmpdir(), 'genplat-bench-campaign-'));
  let sqlite: CampaignAdmissionFigures;
  try {
    const store = await openStore({ stateDir: dir });
    try {
      sqlite = await measure(store, runs, items);
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
      return { sqlite, postgres: await measure(store, runs, items) };
    } finally {
      await store.close();
    }
  } finally {
    await db.drop();
  }
}

export function campaignLine(name: string, f: CampaignAdmissionFigures | { skipped: string }): string {
  if ('skipped' in f) return `campaign admission (${name}): skipped (${f.skipped})`;
  return `campaign admission (${name}): ${f.items} items in one transaction, ${f.campaigns} campaigns: p50 ${f.p50Ms} ms, p95 ${f.p95Ms} ms, max ${f.maxMs} ms`;
}
