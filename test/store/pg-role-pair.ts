/**
 * A fresh database with two fresh LOGIN roles (random names), for the least-privilege tests: the migration role
 * owns the `genplat` schema the tables go in; the runtime role has nothing but PUBLIC's CONNECT until `db grant`.
 * `drop()` drops the database (pg-helper.ts) and then both roles.
 */
import { randomBytes } from 'node:crypto';
import { ADMIN_URL, createTestDatabase, dropTestDatabases, execOn } from './pg-helper.js';

export const SCHEMA = 'genplat';

export interface RolePair {
  migrator: string;
  runtime: string;
  /** The database as `postgres`, seeing the genplat schema. */
  adminUrl: string;
  migUrl: string;
  rtUrl: string;
  drop(): Promise<void>;
}

function urlAs(base: string, user: string): string {
  const u = new URL(base);
  u.username = user;
  u.password = '';
  u.searchParams.set('options', `-c search_path=${SCHEMA}`);
  return u.toString();
}

export async function createRolePair(): Promise<RolePair> {
  const suffix = randomBytes(5).toString('hex');
  const migrator = `genplat_mig_${suffix}`;
  const runtime = `genplat_rt_${suffix}`;
  const db = await createTestDatabase();
  await execOn(ADMIN_URL, `CREATE ROLE ${migrator} LOGIN`);
  await execOn(ADMIN_URL, `CREATE ROLE ${runtime} LOGIN`);
  await execOn(db, `CREATE SCHEMA ${SCHEMA} AUTHORIZATION ${migrator}`);
  return {
    migrator,
    runtime,
    adminUrl: urlAs(db, new URL(db).username || 'postgres'),
    migUrl: urlAs(db, migrator),
    rtUrl: urlAs(db, runtime),
    async drop() {
      await dropTestDatabases();
      await execOn(ADMIN_URL, `DROP ROLE IF EXISTS ${runtime}`);
      await execOn(ADMIN_URL, `DROP ROLE IF EXISTS ${migrator}`);
    },
  };
}
