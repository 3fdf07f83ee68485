/**
 * Chooses the store: PostgreSQL when `GENPLAT_DATABASE_URL` is set (a fleet), else SQLite in the state dir.
 * `pg` is loaded only for PostgreSQL, so a stdio start does not pay for it.
 */
import { join } from 'node:path';
import type { Config } from '../config.js';
import { stepReached } from '../kill-steps.js';
import { type Logger, registerSecret } from '../log.js';
import type { DbTimeouts } from './db-timeouts.js';
import { withSpool } from './spool.js';
import { storeStateError } from './state-errors.js';
import type { Store } from './types.js';

export type { AdmitRefusal, AdmitResult, AdmitRules, Observation, Settlement, Store, StoreRole } from './types.js';
export { SCHEMA_VERSION, SchemaMigrationNeededError, SchemaTooNewError } from './types.js';

export async function openStore(opts: {
  stateDir: string;
  databaseUrl?: string | undefined;
  log?: Pick<Logger, 'warn'>;
  /** Test-only: runs inside the admit transaction after the intent's insert, before COMMIT (src/kill-steps.ts). */
  onAdmitWrite?: (() => void) | undefined;
  /** PostgreSQL only: bounded waits (db-timeouts.ts). */
  dbTimeouts?: Partial<DbTimeouts> | undefined;
}): Promise<Store> {
  const hook = opts.onAdmitWrite ? { onAdmitWrite: opts.onAdmitWrite } : {};
  if (opts.databaseUrl) {
    const { openPostgresStore } = await import('./postgres.js');
    return openPostgresStore(opts.databaseUrl, { ...hook, timeouts: opts.dbTimeouts });
  }
  const { openSqliteStore } = await import('./sqlite.js');
  return openSqliteStore(opts.stateDir, { ...(opts.log ? { log: opts.log } : {}), ...hook });
}

/**
 * The store a server process runs on (stdio, HTTP, sandbox, doctor): registers the database password with the
 * logger's redaction before anything can print the URL, and turns a damaged, locked or too-new store into a
 * StateError naming it. Opening a fresh SQLite store imports a 0.1 `ledger.jsonl` once (import-ledger.ts).
 * @throws StateError (SQLite), or the connection error with the password redacted (PostgreSQL).
 */
export async function openConfiguredStore(
  config: Pick<Config, 'stateDir' | 'databaseUrl' | 'testKillAt'> & { dbTimeouts?: DbTimeouts | undefined },
  log: Pick<Logger, 'warn'> & Partial<Pick<Logger, 'info'>>,
  opts: { spool?: boolean } = {},
): Promise<Store> {
  const kill = stepReached(config.testKillAt);
  if (config.databaseUrl) {
    // Both spellings: the URL carries it percent-encoded, a driver message may quote it decoded.
    registerSecret(databasePassword(config.databaseUrl));
    registerSecret(rawPassword(config.databaseUrl));
    for (const secret of queryCredentials(config.databaseUrl)) registerSecret(secret);
  }
  try {
    const store = await openStore({
      stateDir: config.stateDir,
      databaseUrl: config.databaseUrl,
      dbTimeouts: config.dbTimeouts,
      log,
      onAdmitWrite: kill ? () => kill('in_admit') : undefined,
    });
    // A serving process spools what the platform answered when the store is away (spool.ts); a one-shot
    // command (doctor, audit export) only reads.
    if (!opts.spool) return store;
    return withSpool(
      store,
      join(config.stateDir, 'spool'),
      { warn: log.warn.bind(log), info: (log.info ?? log.warn).bind(log) },
      { onStep: kill },
    );
  } catch (err) {
    if (config.databaseUrl) throw err;
    throw storeStateError(err, join(config.stateDir, 'genplat.db'));
  }
}

function rawPassword(url: string): string | undefined {
  try {
    return new URL(url).password || undefined;
  } catch {
    return undefined;
  }
}

/** The password in a postgres:// URL (percent-decoded as `pg` uses it), for redaction; undefined if none. */
export function databasePassword(url: string): string | undefined {
  try {
    const p = new URL(url).password;
    return p ? decodeURIComponent(p) : undefined;
  } catch {
    return undefined;
  }
}

/** Credentials `pg` also reads from the URL's query (`?password=…`, `sslpassword=…`), for redaction. */
export function queryCredentials(url: string): string[] {
  try {
    const q = new URL(url).searchParams;
    return ['password', 'sslpassword'].flatMap((k) => q.getAll(k)).filter((v) => v !== '');
  } catch {
    return [];
  }
}
