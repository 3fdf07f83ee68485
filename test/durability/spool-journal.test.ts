/**
 * The spool's journal (src/store/spool-journal.ts): dropping an answer the store took stays cheap and the file
 * stays small — emptied when nothing is pending, rewritten with the pending lines only past its size bound — and
 * what it holds after any of that is exactly the answers still pending.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal, type SpoolEntry, SpoolJournal, spoolReport } from '../../src/store/spool-journal.js';

const entry = (n: number): SpoolEntry => ({
  v: 1,
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  settlement: { outcome: 'submitted', handle: `actor_video:vid_${n}`, status: 'processing', reason: 'x'.repeat(200) },
  at: '',
});

describe('spool journal', () => {
  it('is emptied once nothing is pending: a marker per answer, then a truncate', () => {
    const j = new SpoolJournal(mkdtempSync(join(tmpdir(), 'journal-')));
    j.append(entry(1));
    j.append(entry(2));
    j.done(entry(1).id);
    expect([...readJournal(readFileSync(j.file, 'utf8')).pending.keys()]).toEqual([entry(2).id]);
    j.done(entry(2).id);
    expect(statSync(j.file).size).toBe(0);
    j.close();
  });

  it('stays bounded under a stream of answers that never all settle at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    // A 16 KiB bound instead of 1 MiB: the same rule, with 60 fsyncs instead of thousands.
    const j = new SpoolJournal(dir, 16 * 1024);
    j.append(entry(0)); // waits for the store all along
    for (let n = 1; n <= 150; n++) {
      j.append(entry(n));
      j.done(entry(n).id);
    }
    expect(statSync(j.file).size).toBeLessThan(17 * 1024);
    expect([...readJournal(readFileSync(j.file, 'utf8')).pending.keys()]).toEqual([entry(0).id]);
    expect(spoolReport(dir)).toEqual({ waiting: 1, dead: [] });
    j.close();
  });
});
