/**
 * Issue 19 item 2: a PostgreSQL restart in the middle of a fleet run. Three store instances (each its own pool,
 * as three server processes have) admit paid calls on one REAL PostgreSQL (an embedded server of our own, so the
 * restart cannot disturb the other tests' server); the server is stopped and started again; every instance then
 * admits again without being reopened: each pool's dead connections are dropped and fresh ones taken.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { evaluateAdmission } from '../../src/paid/admission.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import type { AdmitRules, NewJobRecord, Store } from '../../src/store/types.js';
import { type EmbeddedPostgresServer, startEmbeddedPostgres } from '../helpers/postgres-server.js';

let server: EmbeddedPostgresServer | undefined;
const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => {});
  await server?.stop();
});

const rules = (): AdmitRules => ({ maxCreditsPerCall: 1000, maxCreditsPerDay: 1e9, dayStart: new Date(0) });
const intent = (fingerprint: string): NewJobRecord => ({
  tool: 'fixture',
  kind: 'actor_video',
  fingerprint,
  summary: fingerprint,
  estimate: { credits: 100, api_units: 1, basis: 'fixture', bounded: true },
  consent: 'token',
  owner: undefined,
});

describe('a PostgreSQL restart mid-run', () => {
  it('every instance admits again after the restart, without a restart of its own; nothing is lost', async () => {
    server = await startEmbeddedPostgres({ keepData: true });
    for (let i = 0; i < 3; i++) stores.push(await openPostgresStore(server.url, { poolSize: 3 }));
    for (const [i, s] of stores.entries()) {
      // Several admits each, so every pool holds open connections that the restart will kill.
      await Promise.all([0, 1, 2].map((k) => s.admit(intent(`before-${i}-${k}`), rules(), evaluateAdmission)));
    }
    await server.restart();
    for (const [i, s] of stores.entries()) {
      const r = await s.admit(intent(`after-${i}`), rules(), evaluateAdmission);
      expect(r.admitted).toBe(true);
      expect(await s.spendSince(new Date(0))).toBeGreaterThanOrEqual(100 * (9 + i + 1));
    }
    expect((await stores[0]!.list({ limit: 100 })).length).toBe(12);
  }, 60_000);
});
