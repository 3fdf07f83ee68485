/**
 * The migration role's two jobs on the shared store (docs/storage.md), behind `genplat-mcp db migrate` and
 * `genplat-mcp db grant ROLE`: bring the schema to this version, and give the server's runtime role exactly the
 * privileges it needs. Both refuse to run as a role that does not own the schema: a runtime role never migrates.
 */
import pg from 'pg';
import { grantRuntimeRole } from './pg-roles.js';
import { canMigrate, migrateSchema } from './pg-schema.js';
import { describeUrl } from './postgres.js';
import { SCHEMA_VERSION } from './types.js';

export interface MigrateReport {
  where: string;
  from: number;
  to: number;
  /** The connected role (the schema's owner). */
  user: string;
}

/** Runs `fn` on one session of `url` as a role that owns the schema (or may create it). */
async function asOwner<T>(url: string, fn: (c: pg.Client, report: MigrateReport) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  // An idle session's error must not crash the command; the failing query rejects on its own.
  c.on('error', () => {});
  await c.connect();
  try {
    const where = describeUrl(url);
    const user = String((await c.query<{ u: string }>('SELECT current_user AS u')).rows[0]?.u);
    if (!(await canMigrate(c))) {
      throw new Error(
        `role "${user}" does not own the genplat_* tables at ${where} (it is a runtime role, or the schema belongs to another role): run this command with GENPLAT_DATABASE_URL set to the migration role, the tables' owner.`,
      );
    }
    const from = await migrateSchema(c, where);
    return await fn(c, { where, from, to: SCHEMA_VERSION, user });
  } finally {
    await c.end().catch(() => {});
  }
}

/** Creates or migrates the schema (and its consent key). */
export function migrateDatabase(url: string): Promise<MigrateReport> {
  return asOwner(url, async (_c, report) => report);
}

/** Migrates if needed, then grants `role` the runtime privileges; returns the statements it ran. */
export function grantDatabaseRole(url: string, role: string): Promise<{ report: MigrateReport; statements: string[] }> {
  return asOwner(url, async (c, report) => ({ report, statements: await grantRuntimeRole(c, role) }));
}
