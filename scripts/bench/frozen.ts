/**
 * Issue 19 item 2: how long one frozen instance stalls a healthy one. Instance A freezes inside `admit` (after
 * its insert, before COMMIT: its session sits `idle in transaction` holding the account's advisory lock); B
 * then admits a call. B waits until the server ends A's session (GENPLAT_DB_IDLE_TX_TIMEOUT_MS), then admits.
 * Printed: B's stall per run against the configured bound. Real PostgreSQL (a throw-away database).
 */
import { evaluateAdmission } from '../../src/paid/admission.js';
import { talkingVideoEstimate } from '../../src/paid/pricing/estimate.js';
import { DEFAULT_DB_TIMEOUTS } from '../../src/store/db-timeouts.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { createBenchDatabase } from './pg-database.js';

export interface FrozenFigures {
  boundMs: number;
  stallsMs: number[];
  maxStallMs: number;
  admittedAfterFreeze: number;
}

const intent = (fingerprint: string) => ({
  tool: 'create_talking_video',
  kind: 'actor_video' as const,
  fingerprint,
  summary: fingerprint,
  estimate: talkingVideoEstimate(),
  consent: 'token' as const,
  owner: undefined,
});

export async function frozenInstance(runs = 3): Promise<FrozenFigures | { skipped: string }> {
  let db: Awaited<ReturnType<typeof createBenchDatabase>>;
  try {
    db = await createBenchDatabase();
  } catch (err) {
    return { skipped: `no PostgreSQL: ${(err as Error).message}` };
  }
  const bound = DEFAULT_DB_TIMEOUTS.idleInTransactionMs;
  const rules = () => ({ maxCreditsPerCall: 2_000, maxCreditsPerDay: 1e12, dayStart: new Date(0) });
  const stalls: number[] = [];
  let admitted = 0;
  try {
    for (let run = 0; run < runs; run++) {
      let frozen: () => void = () => {};
      const reached = new Promise<void>((r) => {
        frozen = r;
      });
      let thaw: () => void = () => {};
      const a = await openPostgresStore(db.url, {
        onAdmitWrite: () =>
          new Promise<void>((r) => {
            thaw = r;
            frozen();
          }),
      });
      const b = await openPostgresStore(db.url);
      const stuck = a.admit(intent(`frozen-${run}`), rules(), evaluateAdmission).catch(() => undefined);
      await reached;
      const t0 = performance.now();
      const res = await b.admit(intent(`healthy-${run}`), rules(), evaluateAdmission);
      stalls.push(Math.round(performance.now() - t0));
      if (res.admitted) admitted++;
      thaw();
      await stuck;
      await a.close();
      await b.close();
    }
  } finally {
    await db.drop();
  }
  return { boundMs: bound, stallsMs: stalls, maxStallMs: Math.max(...stalls), admittedAfterFreeze: admitted };
}
