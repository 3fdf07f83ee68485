/**
 * Hostile review 3 (issue 27 item 4): the spool decides "this journal's writer is gone" by its pid alone
 * (`isAlive`: a journal named with THIS process's pid is never alive). Two serving processes that see the same
 * pid — two containers sharing a state-dir volume, each running node as PID 1 (or any two pid namespaces) —
 * therefore claim each other's LIVE journals: the claimer renames and deletes the file while its writer keeps
 * appending to the open descriptor, so every POST answer the writer spools afterwards goes to a deleted file.
 * A kill -9 of that writer then loses the job id: no later process finds the line (invariant 3).
 *
 * Two SpoolJournal instances in one test process stand for the two PID-1 processes (same pid, same dir).
 */
import { mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type SpoolEntry, SpoolJournal } from '../../src/store/spool-journal.js';
import { writerTag } from '../../src/store/spool-liveness.js';

const entry = (id: string): SpoolEntry => ({
  v: 1,
  id,
  settlement: { outcome: 'submitted', handle: `h-${id}`, requestId: `req-${id}`, remote: { id: `job-${id}` } } as never,
  at: new Date().toISOString(),
});

describe('review3: a live journal claimed by a process with the same pid', () => {
  it("the writer's next POST answer lands in a deleted file: after both stop, no process can replay it", () => {
    const dir = mkdtempSync(join(tmpdir(), 'review3-spool-'));
    const a = new SpoolJournal(dir); // container A's server (PID 1), alive
    a.append(entry('first')); // A's store is unreachable: the answer waits in A's journal
    const b = new SpoolJournal(dir); // container B's server (also PID 1) starts on the shared volume
    b.claim(() => {}); // takes A's journal although A is alive
    a.append(entry('second')); // A spools the next paid POST's answer (job id job-second)...
    // ...and is killed (a deploy, OOM) before its store comes back; B is stopped too.
    a.close();
    b.close();
    const next = new SpoolJournal(dir); // the next process on the state dir replays what it finds
    const found = next.claim(() => {}).map((e) => e.id);
    expect(found).toContain('first');
    expect(found, 'the job id of the second POST is gone with the deleted file').toContain('second');
  });

  it('a dead writer whose pid now belongs to another live process (a reboot, pid reuse): its answer is never replayed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'review3-spool-'));
    // Written by a server that was killed before its store came back; since then (e.g. after a reboot) its pid
    // number is held by an unrelated long-lived process — here this test's parent, which is alive.
    const file = join(dir, `${process.ppid}-0badc0de.jsonl`);
    writeFileSync(file, `${JSON.stringify(entry('orphan'))}\n`);
    // Its writer's last heartbeat (the journal's mtime) is an hour old: the writer is gone whatever the pid says.
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(file, anHourAgo, anHourAgo);
    const found = new SpoolJournal(dir).claim(() => {}).map((e) => e.id);
    expect(found, 'the spooled job id waits as long as the unrelated process lives').toContain('orphan');
  });

  it('the same, written in this pid namespace by a process that is gone: taken at once, no heartbeat wait', () => {
    const dir = mkdtempSync(join(tmpdir(), 'review3-spool-'));
    // Named as this namespace names journals, with the parent's pid but another start time: a dead writer whose
    // pid was reused (the file is fresh, so only the pid + start time tell).
    const ns = writerTag().split('-')[1];
    if (ns === 'x') return; // no /proc here: only the heartbeat decides (the test above)
    writeFileSync(join(dir, `${process.ppid}-${ns}-1-0badc0de.jsonl`), `${JSON.stringify(entry('orphan'))}\n`);
    const found = new SpoolJournal(dir).claim(() => {}).map((e) => e.id);
    expect(found).toContain('orphan');
  });

  it('a live writer of another namespace (fresh heartbeat, same pid) keeps its journal', () => {
    const dir = mkdtempSync(join(tmpdir(), 'review3-spool-'));
    // Another container's PID 1, alive: its namespace hash is not ours, its heartbeat is fresh.
    writeFileSync(join(dir, `${process.pid}-000000000000-1-0badc0de.jsonl`), `${JSON.stringify(entry('theirs'))}\n`);
    expect(new SpoolJournal(dir).claim(() => {})).toEqual([]);
    // Once its heartbeat is older than the bound (here -1 ms: any age), it is taken.
    const found = new SpoolJournal(dir, undefined, -1).claim(() => {}).map((e) => e.id);
    expect(found).toContain('theirs');
  });

  it('a writer whose live journal was taken anyway (stalled past the bound) puts every pending answer back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'review3-spool-'));
    const a = new SpoolJournal(dir);
    a.append(entry('first'));
    // A claimer elsewhere took it (rename, then delete once folded in) while `a` still holds it open.
    renameSync(a.file, join(dir, 'taken.tmp'));
    rmSync(join(dir, 'taken.tmp'));
    a.append(entry('second')); // notices the file is no longer its own
    a.close();
    const found = new SpoolJournal(dir).claim(() => {}).map((e) => e.id);
    expect(found).toEqual(expect.arrayContaining(['first', 'second']));
  });
});
