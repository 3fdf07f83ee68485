/**
 * Chooses the store: PostgreSQL when `GENPLAT_DATABASE_URL` is set (a fleet), else SQLite in the state dir.
 * `pg` is loaded only for PostgreSQL, so a stdio start does not pay for it.
 */
import type { Logger } from '../log.js';
import type { Store } from './types.js';

export type { AdmitRefusal, AdmitResult, AdmitRules, Observation, Settlement, Store } from './types.js';
export { SCHEMA_VERSION, SchemaTooNewError } from './types.js';

export async function openStore(opts: {
  stateDir: string;
  databaseUrl?: string | undefined;
  log?: Pick<Logger, 'warn'>;
}): Promise<Store> {
  if (opts.databaseUrl) {
    const { openPostgresStore } = await import('./postgres.js');
    return openPostgresStore(opts.databaseUrl);
  }
  const { openSqliteStore } = await import('./sqlite.js');
  return openSqliteStore(opts.stateDir, opts.log ? { log: opts.log } : {});
}
