/**
 * What the spool keeps for a later replay (the store could not be reached, or was busy) and what it sets aside
 * in the dead-letter file (the store answered and refused): src/store/unreachable.ts, on errors real SQLite and
 * real PostgreSQL raise.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSqlite } from '../../src/store/sqlite-module.js';
import { storeStateError } from '../../src/store/state-errors.js';
import { isStoreUnreachable } from '../../src/store/unreachable.js';
import { createTestSchema, dropTestDatabases } from '../store/pg-helper.js';

afterAll(dropTestDatabases);

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('unreachable or refused', () => {
  it('SQLite: busy (also as the StateError the store raises) is unreachable; a trigger refusal is not', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'unreach-')), 'x.db');
    const { DatabaseSync } = loadSqlite();
    const a = new DatabaseSync(file);
    const b = new DatabaseSync(file, { timeout: 0 });
    a.exec('CREATE TABLE t (n INTEGER)');
    a.exec(`CREATE TRIGGER no BEFORE INSERT ON t WHEN NEW.n < 0 BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    a.exec('BEGIN IMMEDIATE');
    const busy = thrown(() => b.exec('BEGIN IMMEDIATE'));
    a.exec('ROLLBACK');
    expect(isStoreUnreachable(busy)).toBe(true);
    expect(isStoreUnreachable(storeStateError(busy, file))).toBe(true);
    const refused = thrown(() => a.exec('INSERT INTO t VALUES (-1)'));
    expect(isStoreUnreachable(refused)).toBe(false);
    expect(isStoreUnreachable(storeStateError(refused, file))).toBe(false);
    a.close();
    b.close();
  });

  it('PostgreSQL: a refused connection is unreachable; a check violation or a NUL byte is not', async () => {
    const down = new pg.Client({
      connectionString: 'postgres://nobody@127.0.0.1:1/none',
      connectionTimeoutMillis: 2000,
    });
    const refusedConnect = await down.connect().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isStoreUnreachable(refusedConnect)).toBe(true);
    const c = new pg.Client({ connectionString: await createTestSchema() });
    await c.connect();
    try {
      await c.query('CREATE TABLE t (n INTEGER CHECK (n >= 0), s TEXT)');
      const check = await c.query('INSERT INTO t VALUES (-1, $1)', ['x']).catch((err: unknown) => err);
      expect(isStoreUnreachable(check)).toBe(false);
      const nul = await c.query('INSERT INTO t VALUES (1, $1)', ['a\u0000b']).catch((err: unknown) => err);
      expect(isStoreUnreachable(nul)).toBe(false);
    } finally {
      await c.end();
    }
  });
});
