/**
 * A cross-process lock over the state dir: the lock file `<stateDir>/send.lock`, created with `O_CREAT|O_EXCL`
 * (flag `wx`), which the OS makes atomic across processes. No native addon (`flock` would need one).
 *
 * Why: the per-day ceiling and the duplicate guard read the ledger, then the intent is written. Several stdio
 * hosts (Claude Desktop and Claude Code) commonly run one server each on the default state dir; without a
 * lock both could read before either wrote, and both send a paid POST.
 *
 * The file holds `{pid, hostname, at, token}`; `token` is random, so "is it still ours" is a content compare.
 * A holder refreshes the file's mtime while it holds the lock, so age says whether the holder is alive even
 * on another host (network file system). A lock is stale, and removed, when:
 * - its holder is on this host and its pid has exited (`kill(pid, 0)` → ESRCH), or names our own pid but
 *   is not one we hold (left by an earlier process that had our pid: containers reuse pids across restarts);
 * - or its mtime is older than `staleMs` (a holder on another host that died, or a recycled pid).
 *
 * Removal never deletes a fresh lock: the stale file is first renamed to a unique name, and only if the
 * renamed file still holds the content judged stale is it deleted; otherwise (a lock taken between our check
 * and our rename) it is linked back. The one gap left: a third process taking the free name in the
 * microseconds between that rename and the link-back; then two holders overlap once, logged as a warning.
 */
import { randomBytes } from 'node:crypto';
import { type FileHandle, link, open, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { GenplatError } from '../errors.js';
import type { Logger } from '../log.js';
import { StateError } from './state-error.js';

/**
 * How long to wait for the lock before refusing. The section is one ledger read plus one fdatasync'd append
 * (milliseconds; an upscale adds one status GET, usually well under a second), so 5 s is far past a normal
 * wait yet leaves most of a host's ~60 s tool timeout for the refusal to reach the agent.
 */
export const LOCK_WAIT_MS = 5_000;
/**
 * A lock not refreshed for this long is stale. A holder refreshes every `staleMs / 3` (10 s), so this is
 * three missed refreshes: a live holder whose event loop stalls (GC, slow disk) is not robbed, and a dead
 * holder on another host blocks sends for at most 30 s.
 */
export const LOCK_STALE_MS = 30_000;
/**
 * Retry delay while the lock is held, jittered so two waiters do not retry in lockstep. A section takes
 * a few ms on an SSD and tens on a slow disk: 10-50 ms adds little latency and costs nearly nothing.
 */
const RETRY_MIN_MS = 10;
const RETRY_SPREAD_MS = 40;

/** The state dir's send lock could not be taken in time: nothing was sent or charged. */
export class LockBusyError extends GenplatError {
  constructor(path: string, waitedMs: number, holder: string) {
    super(
      `Refused: another genplat-mcp process on the same state dir held its send lock (${path}, ${holder}) for more than ${Math.round(waitedMs / 1000)} s. Nothing was sent or charged.`,
      'Call again in a few seconds. If it repeats, check for a stuck genplat-mcp process; a lock whose holder has exited is removed automatically.',
    );
  }
}

export interface LockOptions {
  /** Give up after this long (default `LOCK_WAIT_MS`). */
  waitMs?: number;
  /** A lock not refreshed for this long is stale (default `LOCK_STALE_MS`). */
  staleMs?: number;
  log?: Pick<Logger, 'warn'>;
}

interface Holder {
  pid?: unknown;
  hostname?: unknown;
  at?: unknown;
  token?: unknown;
}

/** Tokens of the locks this process holds right now (any ledger instance): tells our own live locks from a
 * leftover of an earlier process that had our pid. */
const heldHere = new Set<string>();

function isCode(err: unknown, ...codes: string[]): boolean {
  return typeof err === 'object' && err !== null && codes.includes((err as NodeJS.ErrnoException).code ?? '');
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else. Only ESRCH proves it is gone.
    return !isCode(err, 'ESRCH');
  }
}

function parseHolder(text: string): Holder | undefined {
  try {
    const h: unknown = JSON.parse(text);
    return h && typeof h === 'object' ? (h as Holder) : undefined;
  } catch {
    return undefined;
  }
}

function describeHolder(text: string | undefined): string {
  const h = text === undefined ? undefined : parseHolder(text);
  if (!h) return 'holder unknown';
  return `pid ${String(h.pid)} on ${String(h.hostname)} since ${String(h.at)}`;
}

/**
 * Why the current lock file is stale, or undefined if it is live (or gone).
 * Reads content and mtime through one descriptor, so both describe the same file.
 */
async function inspect(path: string, staleMs: number): Promise<{ content: string; stale: string | undefined }> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    if (isCode(err, 'ENOENT')) return { content: '', stale: undefined };
    throw err;
  }
  try {
    const st = await fh.stat();
    const content = await fh.readFile('utf8');
    const age = Date.now() - st.mtimeMs;
    if (age > staleMs) return { content, stale: `not refreshed for ${Math.round(age / 1000)} s` };
    // An empty or partial file is a lock being written right now: judged by age only.
    const h = parseHolder(content);
    if (h && h.hostname === hostname() && typeof h.pid === 'number') {
      if (h.pid === process.pid && typeof h.token === 'string' && !heldHere.has(h.token)) {
        return { content, stale: 'left by an earlier process with our pid' };
      }
      if (h.pid !== process.pid && !pidAlive(h.pid)) return { content, stale: `holder pid ${h.pid} has exited` };
    }
    return { content, stale: undefined };
  } finally {
    await fh.close();
  }
}

/**
 * Removes the lock file only if it still holds `expected`: renamed aside first, so a lock someone took after
 * our check is never deleted (it is linked back instead).
 * @returns true if the file with `expected` was removed.
 */
async function removeIfUnchanged(
  path: string,
  expected: string,
  log: Pick<Logger, 'warn'> | undefined,
): Promise<boolean> {
  const aside = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.old`;
  try {
    await rename(path, aside);
  } catch (err) {
    if (isCode(err, 'ENOENT')) return false; // someone else removed it first
    throw err;
  }
  let moved: string | undefined;
  try {
    const fh = await open(aside, 'r');
    try {
      moved = await fh.readFile('utf8');
    } finally {
      await fh.close();
    }
  } catch {
    moved = undefined;
  }
  if (moved === expected) {
    await unlink(aside).catch(() => {});
    return true;
  }
  // We moved a lock taken after our check: put it back (link fails if the name was taken again meanwhile).
  try {
    await link(aside, path);
  } catch (err) {
    log?.warn(
      `send lock: could not restore ${path} after removing a stale lock (${String((err as Error).message ?? err)}); two processes may have sent at once`,
    );
  } finally {
    await unlink(aside).catch(() => {});
  }
  return false;
}

/**
 * Runs `fn` while holding the lock file `path` (see the module comment). The lock is released when `fn`
 * settles, whether it resolved or threw.
 * @throws LockBusyError when the lock stays held by a live holder past `waitMs`; file-system errors as is.
 */
export async function withFileLock<T>(path: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const waitMs = opts.waitMs ?? LOCK_WAIT_MS;
  const staleMs = opts.staleMs ?? LOCK_STALE_MS;
  const token = randomBytes(12).toString('hex');
  const started = Date.now();
  // Registered before the file exists, so our own inspection never takes our fresh lock for a leftover.
  heldHere.add(token);
  let fh: FileHandle | undefined;
  try {
    let lastSeen: string | undefined;
    while (!fh) {
      try {
        fh = await open(path, 'wx', 0o600);
      } catch (err) {
        // A file-system failure (the lock path is a folder, the dir is not writable) names the path and the
        // fix; it is not "busy", and waiting would not help.
        if (!isCode(err, 'EEXIST')) throw StateError.from(err, path);
        const { content: seen, stale } = await inspect(path, staleMs).catch((e: unknown) => {
          throw StateError.from(e, path);
        });
        lastSeen = seen;
        if (stale !== undefined && (await removeIfUnchanged(path, seen, opts.log))) {
          opts.log?.warn(`send lock: removed a stale lock (${stale}; ${describeHolder(seen)})`);
          continue;
        }
        // Held, or a removal that did not happen (another recoverer was first): wait, within the bound.
        if (Date.now() - started >= waitMs) throw new LockBusyError(path, waitMs, describeHolder(lastSeen));
        await sleep(RETRY_MIN_MS + Math.random() * RETRY_SPREAD_MS);
      }
    }
    const content = JSON.stringify({ pid: process.pid, hostname: hostname(), at: new Date().toISOString(), token });
    try {
      await fh.writeFile(content);
    } catch (err) {
      await fh.close().catch(() => {});
      fh = undefined;
      await unlink(path).catch(() => {});
      throw err;
    }
    const held = fh;
    // The refresh goes through our descriptor, so it touches our file even if it was moved aside.
    const refresh = setInterval(
      () => {
        const now = new Date();
        held.utimes(now, now).catch(() => {});
      },
      Math.max(1, Math.floor(staleMs / 3)),
    );
    refresh.unref();
    try {
      return await fn();
    } finally {
      clearInterval(refresh);
      await held.close().catch(() => {});
      fh = undefined;
      const removed = await removeIfUnchanged(path, content, opts.log).catch(() => false);
      if (!removed) {
        // Ours was judged stale while held (a stall past staleMs), or the file system refused: either way
        // nothing is left for us to remove, and a leftover of ours is recovered as stale.
        opts.log?.warn(`send lock: ${path} was not ours any more, or could not be removed, at release`);
      }
    }
  } finally {
    heldHere.delete(token);
    await fh?.close().catch(() => {});
  }
}
