/**
 * Issue 19 item 2: one frozen instance must not stall the fleet. An instance frozen inside `admit` (its
 * session `idle in transaction`, holding the account's advisory lock) is cut off by the server after
 * `idleInTransactionMs`; the others wait at most that long and then admit. A lock wait shorter than the freeze
 * is refused unsent with a retryable error. Real PostgreSQL (pg-helper.ts). The stall figure is printed by
 * `npm run bench` (BENCH_ONLY=frozen), never asserted here.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { evaluateAdmission } from '../../src/paid/admission.js';
import { StoreBusyError } from '../../src/store/db-timeouts.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import type { AdmitRules, NewJobRecord } from '../../src/store/types.js';
import { createTestSchema, dropTestDatabases } from './pg-helper.js';

afterAll(dropTestDatabases);

const rules = (): AdmitRules => ({
  maxCreditsPerCall: 1000,
  maxCreditsPerDay: 1_000_000,
  dayStart: new Date(Date.now() - 3_600_000),
});
const intent = (fingerprint: string): NewJobRecord => ({
  tool: 'fixture',
  kind: 'actor_video',
  fingerprint,
  summary: fingerprint,
  estimate: { credits: 100, api_units: 1, basis: 'fixture', bounded: true },
  consent: 'token',
  owner: undefined,
});

/** An instance that freezes inside its next admit (after the insert, before COMMIT) until `thaw()`. */
async function freezingInstance(url: string, idleInTransactionMs: number) {
  let thaw: () => void = () => {};
  let frozen: () => void = () => {};
  const reached = new Promise<void>((r) => {
    frozen = r;
  });
  const store = await openPostgresStore(url, {
    timeouts: { idleInTransactionMs },
    onAdmitWrite: () =>
      new Promise<void>((r) => {
        thaw = r;
        frozen();
      }),
  });
  return { store, reached, thaw: () => thaw() };
}

describe('a frozen instance (PostgreSQL)', () => {
  it('is cut off by the server; a healthy instance then admits, and the frozen admit never commits', async () => {
    const url = await createTestSchema();
    const a = await freezingInstance(url, 1_000);
    const b = await openPostgresStore(url, { timeouts: { idleInTransactionMs: 1_000, lockMs: 6_000 } });
    const stuck = a.store.admit(intent('frozen'), rules(), evaluateAdmission);
    await a.reached;
    const admitted = await b.admit(intent('healthy'), rules(), evaluateAdmission);
    expect(admitted.admitted).toBe(true);
    a.thaw();
    // The server ended A's session: its COMMIT fails, so no intent was written and nothing could be sent.
    await expect(stuck).rejects.toThrow();
    expect((await b.list()).map((r) => r.fingerprint)).toEqual(['healthy']);
    expect(await b.spendSince(new Date(0))).toBe(100);
    await b.close();
    await a.store.close();
  }, 30_000);

  it('a lock wait shorter than the freeze is refused unsent, retryable, naming the setting', async () => {
    const url = await createTestSchema();
    const a = await freezingInstance(url, 4_000);
    const c = await openPostgresStore(url, { timeouts: { lockMs: 300 } });
    const stuck = a.store.admit(intent('frozen'), rules(), evaluateAdmission);
    await a.reached;
    const refused = await c.admit(intent('impatient'), rules(), evaluateAdmission).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreBusyError);
    expect(String((refused as Error).message)).toMatch(/Nothing was sent or charged/);
    expect((refused as StoreBusyError).nextStep).toMatch(/GENPLAT_DB_LOCK_TIMEOUT_MS/);
    a.thaw();
    await stuck.catch(() => {});
    // After the freeze the same call is admitted: nothing was written by the refusal.
    expect((await c.admit(intent('impatient'), rules(), evaluateAdmission)).admitted).toBe(true);
    await c.close();
    await a.store.close();
  }, 30_000);
});
