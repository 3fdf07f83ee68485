/**
 * A real PostgreSQL for the tests, never a mock and never a silent skip: the one test/helpers/postgres-server.ts
 * chose for this run and put in `GENPLAT_TEST_DATABASE_URL` (the caller's own setting, else the server on
 * 127.0.0.1:5432, else an embedded one started from npm). Each call to
 * `createTestDatabase` makes its own `genplat_test_<random>` database; `dropTestDatabases` drops them.
 * `createTestSchema` gives a fresh empty location inside one database per test file (a CREATE/DROP DATABASE
 * costs about a second each on the shared CI box; a schema costs milliseconds).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const ADMIN_URL = process.env.GENPLAT_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const created: string[] = [];

/** The URL for a message, without its password (a caller's GENPLAT_TEST_DATABASE_URL may carry one). */
function shown(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  try {
    await c.connect();
  } catch (err) {
    throw new Error(
      `The PostgreSQL tests could not connect to ${shown(ADMIN_URL)}: ${(err as Error).message}. ` +
        'Something answering on 127.0.0.1:5432 is used as user postgres with trust auth; set GENPLAT_TEST_DATABASE_URL ' +
        'to another server, or to `embedded` for a throwaway one from npm (started when nothing answers on 5432).',
    );
  }
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export async function createTestDatabase(): Promise<string> {
  const name = `genplat_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  created.push(name);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropTestDatabases(): Promise<void> {
  shared = undefined;
  const names = created.splice(0);
  if (names.length === 0) return;
  await admin(async (c) => {
    // WITH (FORCE): a test that failed midway may leave a pool open.
    for (const name of names) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
}

export async function execOn(url: string, sql: string, args: unknown[] = []): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql, args);
  } finally {
    await c.end();
  }
}

let shared: Promise<string> | undefined;

/** A URL whose connections see only a fresh schema (search_path) in this file's test database. */
export async function createTestSchema(): Promise<string> {
  shared ??= createTestDatabase();
  const base = await shared;
  const schema = `s_${randomBytes(6).toString('hex')}`;
  await execOn(base, `CREATE SCHEMA ${schema}`);
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}
