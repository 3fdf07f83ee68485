/**
 * A real PostgreSQL for the tests, never a mock and never a silent skip: `GENPLAT_TEST_DATABASE_URL` if set,
 * else the local server on 127.0.0.1:5432 (user postgres, trust auth, as on the CI machines). Each call to
 * `createTestDatabase` makes its own `genplat_test_<random>` database; `dropTestDatabases` drops them.
 * `createTestSchema` gives a fresh empty location inside one database per test file (a CREATE/DROP DATABASE
 * costs about a second each on the shared CI box; a schema costs milliseconds).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const ADMIN_URL = process.env.GENPLAT_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const created: string[] = [];

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  try {
    await c.connect();
  } catch (err) {
    throw new Error(
      `The PostgreSQL store tests need a server: set GENPLAT_TEST_DATABASE_URL, or run one on 127.0.0.1:5432 (user postgres, trust auth). Connecting failed: ${(err as Error).message}`,
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
