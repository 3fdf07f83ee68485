/**
 * Whose journal may be taken (spool-journal.ts `claim`): never a live writer's, and a dead writer's without
 * waiting for ever. A pid alone proves neither (hostile review 3): two servers sharing a state dir from two pid
 * namespaces (each node as PID 1 in its own container) see the same pid, and a dead writer's pid may belong to
 * an unrelated live process since (a reboot, pid reuse).
 *
 * So a journal's name carries its writer's identity, `<pid>-<ns>-<start>-<random>.jsonl`: `ns` a short hash of
 * the boot id and the pid namespace (Linux /proc), `start` the process's start time (/proc/<pid>/stat field 22).
 * And a live writer touches its journal's mtime every HEARTBEAT_MS (spool.ts). A journal is taken when:
 * - this process wrote it and has closed it (a file this process did not create is never "ours" by its pid);
 * - it was written in this very pid namespace and boot, and no process with its pid and start time exists now
 *   (the fast path: a restarted server takes a killed one's answers at once);
 * - otherwise (another namespace or host, an old-style name, no /proc) only when its heartbeat is older than
 *   STALE_MS.
 * A file not named like a journal at all (an operator renamed a dead-letter file to `.jsonl`) has no writer: it
 * is taken at once.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readlinkSync, statSync } from 'node:fs';

/** How often a writer touches its open journal (spool.ts runs it on its own timer). */
export const HEARTBEAT_MS = 5_000;

/**
 * 30 s without a heartbeat = the writer is gone. Six missed heartbeats: a live writer whose event loop stalls
 * for seconds (a long GC pause, an fsync on a saturated disk) keeps its journal; a killed writer in another
 * container has its answers replayed by a survivor within ~35 s (this bound plus one replay interval).
 */
export const STALE_MS = 30_000;

/** Journals this process created: true while open, false once closed (then any claimer may take them). */
const ours = new Map<string, boolean>();

export function markOurs(name: string, open: boolean): void {
  ours.set(name, open);
}

function procStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may hold spaces and parentheses: count from the last ')'; start time is field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Is there a process with this pid in our namespace (EPERM: yes, another user's)? */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function nsTag(): string | undefined {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const ns = readlinkSync('/proc/self/ns/pid');
    return createHash('sha256').update(`${boot}\n${ns}`).digest('hex').slice(0, 12);
  } catch {
    return undefined; // not Linux, or /proc hidden: only the heartbeat decides
  }
}

const self = { ns: nsTag(), start: procStart(process.pid) };

/** This process's part of a journal name: `<pid>-<ns>-<start>` (`x` where unknown). */
export function writerTag(): string {
  return `${process.pid}-${self.ns ?? 'x'}-${self.start ?? 'x'}`;
}

/** May `name` (in `dir`, at `path`) be taken now? */
export function mayTake(name: string, path: string, staleMs: number, now = Date.now()): boolean {
  const open = ours.get(name);
  if (open !== undefined) return !open;
  if (!/^\d+-/.test(name)) return true;
  const m = /^(\d+)-([0-9a-f]{12})-(\d+)-[0-9a-z]+\.jsonl$/.exec(name);
  if (m && self.ns !== undefined && m[2] === self.ns) {
    const pid = Number(m[1]);
    const start = procStart(pid);
    // Our namespace and boot: the pid and its start time name one process; if it is not there, the writer is gone.
    if (start === undefined ? !exists(pid) : start !== m[3]) return true;
    // It is alive — unless it is this very process, whose own journals are all in `ours` (this one is not:
    // another module instance in this process), or its start time is hidden (/proc mounted hidepid): then the
    // heartbeat decides.
    if (start !== undefined && pid !== process.pid) return false;
  }
  try {
    return now - statSync(path).mtimeMs > staleMs;
  } catch {
    return false; // gone meanwhile (claimed by another process)
  }
}
