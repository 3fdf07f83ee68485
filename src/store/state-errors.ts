/**
 * The store's failures as `StateError`s naming the file and the fix (AGENTS.md rule), never a bare errno or
 * SQLite code: a damaged, locked, unreadable or too-new `genplat.db`.
 */
import { GenplatError } from '../errors.js';
import { StateError } from '../jobs/state-error.js';
import { SchemaTooNewError } from './types.js';

const MOVE_ASIDE =
  "Stop every genplat-mcp using it, move the file aside (keep it: it lists your jobs and today's spend), then start again; or point GENPLAT_STATE_DIR at another folder.";

/**
 * @returns a StateError for store failures on `path`; anything else unchanged. The StateError keeps the SQLite
 * error as its `cause`, so the spool can tell a locked file (retried) from a refused write (unreachable.ts).
 */
export function storeStateError(err: unknown, path: string): unknown {
  const out = stateErrorOf(err, path);
  if (out !== err && out instanceof StateError && out.cause === undefined) {
    Object.defineProperty(out, 'cause', { value: err, enumerable: false, writable: true, configurable: true });
  }
  return out;
}

function stateErrorOf(err: unknown, path: string): unknown {
  if (err instanceof GenplatError) return err;
  if (err instanceof SchemaTooNewError) {
    return new StateError(
      path,
      'was written by a newer genplat-mcp (its schema is newer than this one knows)',
      'Upgrade genplat-mcp (every instance sharing this store), or point it at another store. It is refused rather than read, so spend is never undercounted.',
    );
  }
  const e = err as { code?: unknown; errcode?: unknown; errstr?: unknown; message?: unknown } | undefined;
  if (e?.code === 'ERR_SQLITE_ERROR') {
    const text = `${String(e.errstr ?? '')} ${String(e.message ?? '')}`;
    // SQLITE_BUSY (5) / SQLITE_LOCKED (6): another process held the write lock past the busy timeout.
    if (e.errcode === 5 || e.errcode === 6 || /locked|busy/i.test(text)) {
      return new StateError(
        path,
        'is locked by another process (it held the write lock for more than 10 s)',
        'Check for a stopped (suspended) genplat-mcp or a tool holding the database open, then call again.',
      );
    }
    // SQLITE_CORRUPT (11) / SQLITE_NOTADB (26).
    if (e.errcode === 11 || e.errcode === 26 || /malformed|not a database/i.test(text)) {
      return new StateError(path, 'is damaged (not a readable SQLite database)', MOVE_ASIDE);
    }
    // SQLITE_CANTOPEN (14), SQLITE_READONLY (8), SQLITE_FULL (13), SQLITE_IOERR (10).
    if (e.errcode === 8)
      return new StateError(
        path,
        'is read-only for this user',
        `Give this user write access to it and its folder, ${MOVE_ASIDE}`,
      );
    if (e.errcode === 13)
      return new StateError(path, 'cannot be written: the disk is full', 'Free some disk space, then call again.');
    return new StateError(path, `cannot be used (${text.trim() || 'SQLite error'})`, MOVE_ASIDE);
  }
  return StateError.from(err, path);
}
