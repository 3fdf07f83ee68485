/**
 * Bounded waits on the shared PostgreSQL store (issue 19 item 2). Without them a network partition holds a
 * settle open until TCP gives up (hours), and one frozen instance that holds the account's admission lock
 * (`idle in transaction`) stalls every other instance's paid calls for as long as it stays frozen.
 *
 * - `idleInTransactionMs`: the server ends a session that sits inside a transaction doing nothing this long,
 *   which releases its locks. Our transactions are a few short statements (an admit is ~1-5 ms on loopback),
 *   so 5 s only ever fires for a frozen or partitioned instance. This is the bound on how long a frozen
 *   instance delays the others.
 * - `lockMs`: how long `admit` waits for the account's advisory lock. Longer than `idleInTransactionMs`, so a
 *   healthy instance waits out a frozen one (and then admits) instead of refusing; after it, the call is
 *   refused unsent with a retryable message.
 * - `statementMs`: any one statement (server-side cancel). 15 s: far above our slowest query (the spend sum
 *   over a day's records, milliseconds), short enough that an agent's tool call is answered.
 * - `connectMs`: opening a connection; a refused or black-holed database fails fast instead of hanging.
 * - The client-side query timeout (statementMs + 2 s) covers a partition, where the server cannot even send
 *   the cancel.
 */
import { GenplatError } from '../errors.js';

export interface DbTimeouts {
  connectMs: number;
  statementMs: number;
  lockMs: number;
  idleInTransactionMs: number;
}

export const DEFAULT_DB_TIMEOUTS: DbTimeouts = {
  connectMs: 5_000,
  statementMs: 15_000,
  lockMs: 8_000,
  idleInTransactionMs: 5_000,
};

/** Slack on top of the server-side statement timeout for the client-side one (a partition sends no cancel). */
export const CLIENT_QUERY_SLACK_MS = 2_000;

/** SQLSTATEs of a bounded wait that ran out: lock_not_available, query_canceled (statement_timeout). */
const TIMEOUT_CODES = new Set(['55P03', '57014']);

/** True for a timeout of ours (server- or client-side), as opposed to a broken query. */
export function isDbTimeout(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  if (typeof e?.code === 'string' && TIMEOUT_CODES.has(e.code)) return true;
  return (
    typeof e?.message === 'string' && /Query read timeout|timeout exceeded when trying to connect/i.test(e.message)
  );
}

/** The paid call could not be admitted in time: nothing was written, nothing sent. Retryable. */
export class StoreBusyError extends GenplatError {
  constructor(waitedMs: number, options?: { cause?: unknown }) {
    super(
      `The shared job store did not admit this call within ${waitedMs} ms (another instance holds this account's admission lock, or the database is slow or unreachable). Nothing was sent or charged.`,
      'Try the same call again in a few seconds; if it repeats, the operator should check the database (genplat-mcp doctor) and GENPLAT_DB_LOCK_TIMEOUT_MS.',
      options,
    );
  }
}
