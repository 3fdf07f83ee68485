/**
 * Upgrade from 0.1: a state dir in the 0.1 format (test/helpers/ledger01.ts) (jobs, an unknown outcome, today's spend, a
 * used token nonce, the HMAC secret) is imported once into the SQLite store and behaves the same.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateAdmission } from '../../src/paid/admission.js';
import { utcDayStart } from '../../src/paid/guard.js';
import { issueToken, verifyToken } from '../../src/paid/token.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { writeLedger01 } from '../helpers/ledger01.js';
import { intent, rules } from './suite.js';

async function oldStateDir() {
  const dir = mkdtempSync(join(tmpdir(), 'genplat-01-'));
  const now = Date.now();
  const ledger = writeLedger01(dir);
  const done = ledger.recordIntent(intent({ fingerprint: 'done' }, 100));
  ledger.update(done.id, {
    outcome: 'submitted',
    handle: 'actor_video:v1',
    status: 'completed',
    creditsCharged: 90,
  });
  const lost = ledger.recordIntent(intent({ fingerprint: 'lost' }, 200));
  ledger.update(lost.id, { outcome: 'unknown', reason: 'connection reset after the POST was sent' });
  const running = ledger.recordIntent(intent({ fingerprint: 'running', owner: 'alice' }, 300));
  ledger.update(running.id, { outcome: 'submitted', handle: 'actor_video:v3', status: 'processing' });
  const secret = ledger.secret;
  const used = issueToken(secret, { tool: 't', fingerprint: 'f', credits: 1, owner: undefined }, now);
  const claims = verifyToken(secret, used.token, { tool: 't', fingerprint: 'f', credits: 1, owner: undefined }, now);
  if (!claims.ok) throw new Error(claims.reason);
  ledger.consumeNonce(claims.claims.nonce, used.expiresAt);
  const spend = ledger.spendSince(utcDayStart(now));
  const records = ledger.list();
  return {
    dir,
    secret,
    spend,
    records,
    nonce: claims.claims.nonce,
    expiresAt: used.expiresAt,
    ids: { done, lost, running },
  };
}

describe('importing a 0.1 state dir into SQLite', () => {
  it('carries every record, unknown outcomes, today spend, used nonces and the secret; once', async () => {
    const old = await oldStateDir();
    const store = await openSqliteStore(old.dir);
    expect(await store.list()).toEqual(old.records);
    expect(await store.spendSince(utcDayStart(Date.now()))).toBe(old.spend);
    expect(old.spend).toBe(90 + 200 + 300);
    expect(await store.get('actor_video:v1')).toMatchObject({ id: old.ids.done.id, creditsCharged: 90 });
    // the unknown outcome still blocks a duplicate, as it did in 0.1
    const dup = await store.admit(
      intent({ fingerprint: 'lost' }),
      {
        ...rules({ dayStart: utcDayStart(Date.now()) }),
        duplicate: { fingerprint: 'lost', owner: undefined },
      },
      evaluateAdmission,
    );
    expect(dup).toMatchObject({ admitted: false, reason: 'duplicate', record: { id: old.ids.lost.id } });
    // the token already redeemed under 0.1 stays used; the secret still verifies tokens 0.1 issued
    const reuse = await store.admit(
      intent({ fingerprint: 'x' }),
      {
        ...rules({ dayStart: utcDayStart(Date.now()) }),
        nonce: { value: old.nonce, expiresAt: old.expiresAt },
      },
      evaluateAdmission,
    );
    expect(reuse).toEqual({ admitted: false, reason: 'token_used' });
    expect((await store.consentKey()).equals(old.secret)).toBe(true);
    // set aside, and never imported twice
    expect(existsSync(join(old.dir, 'ledger.jsonl'))).toBe(false);
    expect(readFileSync(join(old.dir, 'ledger.jsonl.imported'), 'utf8')).toContain(old.ids.done.id);
    await store.close();
    const again = await openSqliteStore(old.dir);
    expect(await again.list()).toHaveLength(3);
    await again.close();
  });

  it('imports once when two stores open a fresh 0.1 state dir together', async () => {
    const old = await oldStateDir();
    const [a, b] = await Promise.all([openSqliteStore(old.dir), openSqliteStore(old.dir)]);
    expect(await a.list()).toHaveLength(3);
    expect(await b.list()).toHaveLength(3);
    await Promise.all([a.close(), b.close()]);
  });

  it('does not import into a store that already exists', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genplat-01-'));
    await (await openSqliteStore(dir)).close();
    writeLedger01(dir).recordIntent(intent({ fingerprint: 'late' }));
    const store = await openSqliteStore(dir);
    expect(await store.list()).toEqual([]);
    expect(existsSync(join(dir, 'ledger.jsonl'))).toBe(true);
    await store.close();
  });
});
