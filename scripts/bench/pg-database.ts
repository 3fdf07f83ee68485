/**
 * A throw-away PostgreSQL database for the bench: `genplat_bench_<random>` on BENCH_DATABASE_URL, else
 * GENPLAT_TEST_DATABASE_URL, else the local server on 127.0.0.1:5432 (user postgres, trust auth, as the CI
 * machines have). Unlike the tests (test/helpers/postgres-server.ts) the bench never starts an embedded server:
 * figures from a throwaway cluster run without fsync would not compare with a real server's, so with no server
 * the PostgreSQL figures are reported missing. Dropped WITH (FORCE) afterwards, so a server still holding a pool
 * cannot leave it behind.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const testUrl = process.env.GENPLAT_TEST_DATABASE_URL;
export const PG_ADMIN_URL =
  process.env.BENCH_DATABASE_URL ||
  // `embedded` asks the test setup for a server it starts; the bench has none to offer (above).
  (testUrl && testUrl !== 'embedded' ? testUrl : undefined) ||
  'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** @throws when no server answers (the caller prints why the PostgreSQL figures are missing). */
export async function createBenchDatabase(): Promise<BenchDatabase> {
  const name = `genplat_bench_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
