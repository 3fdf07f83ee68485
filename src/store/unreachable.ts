/**
 * Did a store call fail because the store could not be reached (or was busy), or because the store answered
 * and refused the write? The spool (spool.ts) keeps the first kind for a later replay and sets the second kind
 * aside in a dead-letter file: a refusal does not heal by waiting, and one refused line must not block the
 * lines behind it (issue 27 item 4). A settle is retried only for the first kind (src/paid/settle.ts).
 *
 * An error recognised as neither is treated as a refusal: the line is kept, in the dead-letter file that doctor
 * and the log name, rather than retried for ever in front of the others.
 */

/**
 * PostgreSQL SQLSTATE classes that say nothing about the row: connection exception (08), insufficient resources
 * (53), operator intervention (57: statement timeout, shutdown, "cannot connect now"), system error (58),
 * transaction rollback (40: serialization failure, deadlock).
 */
const PG_TRANSIENT_CLASSES = new Set(['08', '40', '53', '57', '58']);
/** lock_not_available (our lock timeout). */
const PG_TRANSIENT_CODES = new Set(['55P03']);

/** Socket errors of a database that is down, partitioned or restarting. */
const NET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
]);

/**
 * SQLite primary result codes of a file that is busy or not usable right now (the low byte of an extended
 * code): BUSY 5, LOCKED 6, READONLY 8, IOERR 10, FULL 13, CANTOPEN 14, PROTOCOL 15. A trigger's RAISE(ABORT) or
 * a constraint is CONSTRAINT 19: a refusal.
 */
const SQLITE_TRANSIENT = new Set([5, 6, 8, 10, 13, 14, 15]);

/**
 * node-postgres' own messages for a connection it lost or could not open, our client-side timeouts, and
 * SQLite's busy and locked messages (when the error carries no code).
 */
const PG_CLIENT_MESSAGES =
  /database is locked|database table is locked|Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Connection ended unexpectedly|Client was closed|connect ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND/i;

export function isStoreUnreachable(err: unknown): boolean {
  const e = err as { code?: unknown; errcode?: unknown; message?: unknown; cause?: unknown } | undefined;
  if (!e || typeof e !== 'object') return false;
  if (typeof e.code === 'string') {
    if (NET_CODES.has(e.code)) return true;
    if (/^[0-9A-Z]{5}$/.test(e.code))
      return PG_TRANSIENT_CLASSES.has(e.code.slice(0, 2)) || PG_TRANSIENT_CODES.has(e.code);
    if (e.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number') return SQLITE_TRANSIENT.has(e.errcode & 0xff);
  }
  if (typeof e.message === 'string' && PG_CLIENT_MESSAGES.test(e.message)) return true;
  // A wrapper (StoreBusyError, an AggregateError of a pool) whose cause was one of the above.
  return e.cause !== undefined && e.cause !== err && isStoreUnreachable(e.cause);
}
