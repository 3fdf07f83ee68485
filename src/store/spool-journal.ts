/**
 * The spool's files (spool.ts decides what goes in them). Each serving process appends to its own journal,
 * `<state dir>/spool/<pid>-<ns>-<start>-<random>.jsonl` (who may take it: spool-liveness.ts): one line per POST
 * answer, fsynced before the store is written (write-ahead, issue 27 item 4), and a `{"v":1,"done":"<id>"}` marker once the store has it.
 *
 * Why a journal with markers, not one file per answer: an answer costs one append and one fsync, and dropping it
 * costs one small append with no fsync (a marker lost to a power cut only means the answer is replayed, and a
 * replay of an answer the store already has changes nothing). One file per answer would need a create, an fsync
 * of the file and one of the directory per paid POST, and an unlink. The journal is compacted in place: emptied
 * (a truncate) whenever no answer is pending, which between bursts is almost always, and rewritten with only the
 * pending lines if it ever passes COMPACT_BYTES. Reads never touch these files.
 *
 * Lines the store refused go to `dead-<pid>.jsonl.dead` with the reason; renaming such a file to end in `.jsonl`
 * hands its lines back to the next replay (`genplat-mcp doctor` says so).
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  futimesSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { JOB_STATUSES, OutputSchema } from '../jobs/envelope.js';
import { JobKindSchema } from '../jobs/handle.js';
import { markOurs, mayTake, STALE_MS, writerTag } from './spool-liveness.js';
import type { Settlement } from './types.js';

/** A journal this size with answers still pending is rewritten with only those (never in the common case). */
const COMPACT_BYTES = 1 << 20;

export interface SpoolEntry {
  v: 1;
  id: string;
  /** `jobKey` of the settlement's ref, so a handle finds its spooled record before the store has it. */
  key?: string | undefined;
  settlement: Settlement;
  at: string;
}

/**
 * What a line may carry of a settlement, and nothing else: a line is a file anyone with the state dir can edit,
 * so what is read back is checked and cut to the settlement's own fields (zod drops unknown keys) before it is
 * shown or written to the store. An owner, a quote or a summary in a line is never taken.
 */
const Text = z.string().max(100_000);
const SettlementLine = z.object({
  outcome: z.enum(['submitted', 'rejected', 'unknown']),
  handle: Text.optional(),
  ref: z
    .object({ kind: z.string().max(64), id: Text })
    .catchall(Text)
    .optional(),
  kind: JobKindSchema.optional(),
  status: z.enum(JOB_STATUSES).optional(),
  requestId: Text.optional(),
  remote: z.record(z.string(), Text).optional(),
  outputs: z.array(OutputSchema).optional(),
  creditsCharged: z.number().nonnegative().optional(),
  platformEstimate: z.number().nonnegative().optional(),
  originalUrl: Text.optional(),
  reason: Text.optional(),
});
const EntryLine = z.object({
  v: z.literal(1),
  id: z.string().min(1).max(200),
  key: Text.optional(),
  settlement: SettlementLine,
  at: z.string().max(100).optional(),
});
const DoneLine = z.object({ v: z.literal(1), done: z.string().min(1).max(200) });

/** Only a settlement's own fields, checked; undefined when `s` is not a settlement. */
export function settlementFields(s: unknown): Settlement | undefined {
  const r = SettlementLine.safeParse(s);
  return r.success ? (r.data as Settlement) : undefined;
}

export type Line = { entry: SpoolEntry } | { done: string } | { invalid: string };

export function parseLine(text: string): Line {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { invalid: 'not JSON' };
  }
  const done = DoneLine.safeParse(raw);
  if (done.success) return { done: done.data.done };
  const e = EntryLine.safeParse(raw);
  if (!e.success) return { invalid: `not a spool line (${e.error.issues[0]?.path.join('.') || 'shape'})` };
  return { entry: { ...e.data, at: e.data.at ?? '' } as SpoolEntry };
}

/** Pending answers of one file's text, in order (a later line for one id replaces an earlier one). */
export function readJournal(text: string): {
  pending: Map<string, SpoolEntry>;
  invalid: { raw: string; reason: string }[];
} {
  const pending = new Map<string, SpoolEntry>();
  const invalid: { raw: string; reason: string }[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    const line = parseLine(raw);
    if ('entry' in line) {
      pending.delete(line.entry.id);
      pending.set(line.entry.id, line.entry);
    } else if ('done' in line) pending.delete(line.done);
    else invalid.push({ raw, reason: line.invalid });
  }
  return { pending, invalid };
}

export const DEAD_SUFFIX = '.jsonl.dead';

export class SpoolJournal {
  readonly file: string;
  readonly deadFile: string;
  private readonly name: string;
  private fd: number | undefined;
  /** Answers in this journal not yet marked done (in flight, or waiting for the store). */
  private readonly pending = new Map<string, SpoolEntry>();

  constructor(
    readonly dir: string,
    /** Tests pass a small bound; every caller else the default. */
    private readonly compactBytes = COMPACT_BYTES,
    /** How old a heartbeat makes a journal of another namespace takeable (spool-liveness.ts). */
    private readonly staleMs = STALE_MS,
  ) {
    this.name = `${writerTag()}-${randomBytes(4).toString('hex')}.jsonl`;
    this.file = join(dir, this.name);
    this.deadFile = join(dir, `dead-${process.pid}${DEAD_SUFFIX}`);
  }

  /** Appends answers and fsyncs: on disk before the store is written. */
  append(...entries: SpoolEntry[]): void {
    if (entries.length === 0) return;
    const fd = this.open();
    writeSync(fd, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
    fsyncSync(fd);
    for (const e of entries) this.pending.set(e.id, e);
    // Belt and braces against a claimer that took this live journal anyway (a heartbeat missed for STALE_MS):
    // the lines just written may be in its copy or in a deleted file, so all pending go to a fresh file.
    if (!this.stillMine(fd)) this.rewrite();
  }

  /** The writer's heartbeat (spool.ts calls it every HEARTBEAT_MS): another namespace sees this journal alive. */
  heartbeat(): void {
    if (this.fd === undefined) return;
    try {
      const now = new Date();
      futimesSync(this.fd, now, now);
    } catch {
      // A touch that fails leaves the mtime of the last write: at worst the journal is taken, and append notices.
    }
  }

  private stillMine(fd: number): boolean {
    try {
      return statSync(this.file).ino === fstatSync(fd).ino;
    } catch {
      return false;
    }
  }

  /**
   * The store has the answer: a marker, not fsynced (losing it costs one idempotent replay). Empties the journal
   * when nothing is pending any more.
   */
  done(id: string): void {
    if (!this.pending.delete(id) || this.fd === undefined) return;
    try {
      if (this.pending.size === 0) {
        ftruncateSync(this.fd, 0);
        return;
      }
      writeSync(this.fd, `${JSON.stringify({ v: 1, done: id })}\n`);
      if (fstatSync(this.fd).size > this.compactBytes) this.rewrite();
    } catch {
      // The store has the answer: a marker that could not be written costs one idempotent replay, no more.
    }
  }

  /**
   * Takes over the journals of processes that are gone (renamed first: exactly one claimer), copies their pending
   * answers into this journal (one fsync) and removes them. Lines that are not spool lines go to the dead-letter
   * file. Returns the claimed answers, oldest first.
   */
  claim(onInvalid: (file: string, reason: string) => void): SpoolEntry[] {
    const claimed: SpoolEntry[] = [];
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return claimed;
    }
    for (const name of names) {
      const path = join(this.dir, name);
      if (!name.endsWith('.jsonl') || path === this.file || !mayTake(name, path, this.staleMs)) continue;
      // Named like a journal of this process: if this process dies before it is folded in, the next claims it.
      const takenName = `${writerTag()}-c${randomBytes(4).toString('hex')}.jsonl`;
      const taken = join(this.dir, takenName);
      try {
        renameSync(join(this.dir, name), taken);
      } catch {
        continue; // another process claimed it first
      }
      markOurs(takenName, true);
      const { pending, invalid } = readJournal(readFileSync(taken, 'utf8'));
      for (const bad of invalid) {
        this.deadLetter({ line: bad.raw }, bad.reason);
        onInvalid(name, bad.reason);
      }
      const fresh = [...pending.values()].filter((e) => !this.pending.has(e.id));
      this.append(...fresh);
      rmSync(taken, { force: true });
      markOurs(takenName, false);
      claimed.push(...fresh);
    }
    return claimed;
  }

  /** Sets a line aside for the operator, with why; fsynced (it is the only copy). Returns the file's path. */
  deadLetter(line: SpoolEntry | { line: string }, reason: string): string {
    const fd = openSync(this.deadFile, 'a', 0o600);
    try {
      writeSync(fd, `${JSON.stringify({ ...line, refused: reason, refusedAt: new Date().toISOString() })}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if ('id' in line) this.done(line.id);
    return this.deadFile;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    markOurs(this.name, false);
  }

  private open(): number {
    if (this.fd !== undefined) return this.fd;
    markOurs(this.name, true);
    this.fd = openSync(this.file, 'a', 0o600);
    // The file's directory entry must survive a power cut too: once per journal.
    fsyncDir(this.dir);
    return this.fd;
  }

  /** Only the pending answers, in a new file renamed over this one (never a half-written journal). */
  private rewrite(): void {
    const tmp = `${this.file}.tmp`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, [...this.pending.values()].map((e) => `${JSON.stringify(e)}\n`).join(''));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
    fsyncDir(this.dir);
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = openSync(this.file, 'a', 0o600);
  }
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Windows cannot open a directory for fsync; its file system orders the entry with the file's data.
  }
}

/** What `doctor` reports of a spool dir: answers still waiting for the store, and dead-letter files. */
export function spoolReport(dir: string): { waiting: number; dead: { file: string; lines: number }[] } {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { waiting: 0, dead: [] };
  }
  let waiting = 0;
  const dead: { file: string; lines: number }[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      if (name.endsWith('.jsonl')) waiting += readJournal(readFileSync(path, 'utf8')).pending.size;
      else if (name.endsWith(DEAD_SUFFIX)) {
        const lines = readFileSync(path, 'utf8')
          .split('\n')
          .filter((l) => l.trim()).length;
        if (lines > 0) dead.push({ file: path, lines });
      }
    } catch {
      // A file removed while listed (a replay finished): nothing to report.
    }
  }
  return { waiting, dead };
}
