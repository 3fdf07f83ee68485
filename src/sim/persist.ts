/**
 * The sandbox remembers: the simulator's state in one `node:sqlite` file (`<state dir>/sandbox/simulator.db`
 * for `--sandbox`, `sim-cli.db` beside it for `genplat-mcp sim`), so a restarted process finds its jobs,
 * balances, projects and uploads again. What is saved, and how, is `snapshot.ts`; this file only stores rows.
 *
 * Why SQLite and not a JSON file written atomically:
 * - ownership: `locking_mode=EXCLUSIVE` makes the first process that opens the file its only user until it
 *   exits. The OS drops that lock on any exit, kill -9 included, so there is no stale lock file to clean up.
 *   A second process on the same folder (two hosts both started with --sandbox) gets SQLITE_BUSY at once and
 *   runs its sandbox in memory, instead of the two overwriting each other's jobs with whole-file writes;
 * - crash safety without a temp-file-and-rename dance: a save is one transaction (WAL: a killed process
 *   loses nothing committed), and it writes only the rows that changed, not the whole state each time;
 * - no new dependency: the job store already uses `node:sqlite` (src/store/sqlite-module.ts).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { StateError } from '../jobs/state-error.js';
import { loadSqlite } from '../store/sqlite-module.js';

/** `PRAGMA user_version` of the file. A newer file is refused rather than half read. */
export const SIM_STATE_VERSION = 1;

/** Row key → JSON text. Keys are `<kind>/<id>` (snapshot.ts). */
export type Rows = Map<string, string>;

export interface SimStateFile {
  readonly path: string;
  /** The rows found when the file was opened (none after a reset). */
  readonly loaded: Rows;
  /** Writes the rows that differ from the last save (or the load), and deletes the ones gone, in one transaction. */
  save(rows: Rows): void;
  close(): void;
}

export type OpenedState = { kind: 'open'; file: SimStateFile } | { kind: 'busy'; path: string };

const FIX = 'Stop genplat-mcp, then start it again with --reset-sandbox (or `genplat-mcp sim --reset`) to start clean.';

/** SQLite's answer when another connection holds the lock (SQLITE_BUSY 5, SQLITE_LOCKED 6). */
function isBusy(err: unknown): boolean {
  const e = err as { code?: unknown; errcode?: unknown } | undefined;
  return e?.code === 'ERR_SQLITE_ERROR' && (e.errcode === 5 || e.errcode === 6);
}

function stateError(err: unknown, path: string): unknown {
  const e = err as { code?: unknown; errcode?: unknown; message?: unknown } | undefined;
  if (e?.code === 'ERR_SQLITE_ERROR') {
    // SQLITE_CORRUPT (11) / SQLITE_NOTADB (26).
    if (e.errcode === 11 || e.errcode === 26) return new StateError(path, 'is damaged (not a sandbox state file)', FIX);
    if (e.errcode === 8) return new StateError(path, 'is read-only for this user', FIX);
    return new StateError(path, `cannot be used (${String(e.message ?? 'SQLite error')})`, FIX);
  }
  return StateError.from(err, path);
}

/**
 * Opens (creating if needed) the state file and takes it for this process. `reset` empties it first.
 * @returns `busy` when another live process owns it (nothing was read or written).
 * @throws StateError when the file or its folder cannot be used, or was written by a newer version.
 */
export function openSimState(path: string, opts: { reset?: boolean } = {}): OpenedState {
  let db: DatabaseSync | undefined;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const { DatabaseSync } = loadSqlite();
    db = new DatabaseSync(path);
    // 0: a busy file means another process owns it for its whole life; waiting would only delay the start.
    db.exec('PRAGMA busy_timeout = 0');
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('PRAGMA journal_mode = WAL');
    // NORMAL in WAL: a commit survives the process being killed; only a power cut may lose the last saves.
    db.exec('PRAGMA synchronous = NORMAL');
    // The first write takes the exclusive lock, and keeps it until close.
    db.exec('BEGIN IMMEDIATE');
    const version = Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
    if (version > SIM_STATE_VERSION) {
      db.exec('ROLLBACK');
      throw new StateError(path, 'was written by a newer genplat-mcp', FIX);
    }
    db.exec('CREATE TABLE IF NOT EXISTS sim_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
    db.exec(`PRAGMA user_version = ${SIM_STATE_VERSION}`);
    if (opts.reset) db.exec('DELETE FROM sim_state');
    db.exec('COMMIT');
  } catch (err) {
    const busy = isBusy(err);
    try {
      db?.close();
    } catch {
      // closing a half-open handle: nothing more to release
    }
    if (busy) return { kind: 'busy', path };
    throw stateError(err, path);
  }
  const conn = db;
  const loaded: Rows = new Map();
  for (const r of conn.prepare('SELECT key, value FROM sim_state').all() as { key: string; value: string }[]) {
    loaded.set(r.key, r.value);
  }
  const upsert = conn.prepare(
    'INSERT INTO sim_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  );
  const remove = conn.prepare('DELETE FROM sim_state WHERE key = ?');
  let last: Rows = new Map(loaded);
  let closed = false;

  return {
    kind: 'open',
    file: {
      path,
      loaded,
      save(rows) {
        if (closed) return;
        const changed = [...rows].filter(([k, v]) => last.get(k) !== v);
        const gone = [...last.keys()].filter((k) => !rows.has(k));
        if (changed.length === 0 && gone.length === 0) return;
        conn.exec('BEGIN');
        try {
          for (const [k, v] of changed) upsert.run(k, v);
          for (const k of gone) remove.run(k);
          conn.exec('COMMIT');
        } catch (err) {
          conn.exec('ROLLBACK');
          throw stateError(err, path);
        }
        last = new Map(rows);
      },
      close() {
        if (closed) return;
        closed = true;
        conn.close();
      },
    },
  };
}
