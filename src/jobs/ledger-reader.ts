/**
 * Reads a 0.1 `ledger.jsonl` (the JSONL job ledger the store replaced) for the one-time import
 * (`src/store/import-ledger.ts`). Read-only: nothing writes this format any more. Same folding as the 0.1
 * ledger: an `intent` line creates a record, an `update` line patches it; a damaged line (torn by a crash,
 * checksum wrong, wrong field types) is skipped and counted, and the caller is told.
 */
import { readFile } from 'node:fs/promises';
import { encodeHandle } from './handle.js';
import { decodeLine } from './ledger-codec.js';
import { StateError } from './state-error.js';
import type { JobPatch, JobRecord } from './store.js';

/** Fields a patch never changes (the 0.1 ledger's list). */
const IMMUTABLE = ['id', 'createdAt', 'fingerprint', 'tool', 'owner', 'updatedAt'] as const;
/** Fields every reader of a record relies on (the rest may be absent, but not of another type). */
const RECORD_STRINGS = ['tool', 'kind', 'fingerprint', 'summary', 'createdAt'] as const;

function isRecordData(d: Record<string, unknown>): boolean {
  return RECORD_STRINGS.every((k) => typeof d[k] === 'string') && isPatchData(d);
}

/** An update may carry any subset, but what it carries must have the record's types. */
function isPatchData(d: Record<string, unknown>): boolean {
  for (const k of ['handle', 'kind', 'summary', 'outcome', 'status', 'updatedAt'] as const) {
    if (d[k] !== undefined && typeof d[k] !== 'string') return false;
  }
  if (d.outputs !== undefined && !Array.isArray(d.outputs)) return false;
  if (d.estimate !== undefined && (typeof d.estimate !== 'object' || d.estimate === null)) return false;
  return d.remote === undefined || (typeof d.remote === 'object' && d.remote !== null);
}

export interface LedgerContent {
  /** Oldest first (file order breaks createdAt ties, as the 0.1 ledger did). */
  records: JobRecord[];
  damaged: number;
}

/** @throws StateError naming the file when it cannot be read. */
export async function readLedgerFile(path: string): Promise<LedgerContent> {
  const text = await readFile(path, 'utf8').catch((err: unknown) => {
    throw StateError.from(err, path);
  });
  const records = new Map<string, JobRecord>();
  const order = new Map<string, number>();
  let damaged = 0;
  for (const line of text.split('\n')) {
    if (line.length === 0 || line === '\r') continue;
    const ev = decodeLine(line);
    if (!ev) {
      damaged++;
      continue;
    }
    if (ev.type === 'intent') {
      if (!isRecordData(ev.data)) {
        damaged++;
        continue;
      }
      if (records.has(ev.id)) continue;
      const base = { handle: encodeHandle({ kind: 'submission', id: ev.id }), outputs: [] };
      records.set(ev.id, { ...base, ...(ev.data as unknown as JobRecord), id: ev.id });
      order.set(ev.id, order.size);
      continue;
    }
    const rec = records.get(ev.id);
    // An update whose intent line was lost to damage is not a record.
    if (!rec || !isPatchData(ev.data)) {
      damaged++;
      continue;
    }
    const patch: Record<string, unknown> = { ...ev.data };
    for (const key of IMMUTABLE) delete patch[key];
    records.set(ev.id, { ...rec, ...(patch as JobPatch), updatedAt: ev.at });
  }
  const sorted = [...records.values()].sort(
    (a, b) => a.createdAt.localeCompare(b.createdAt) || (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0),
  );
  return { records: sorted, damaged };
}
