/**
 * Writes a state dir exactly as genplat-mcp 0.1 left it (`ledger.jsonl` in the 0.1 line format, `nonces/`
 * files named by the nonce's sha256 holding the token's expiry, a 32-byte `secret`), for the upgrade tests.
 * The 0.1 writer itself is gone from the runtime; the line codec it used is kept (src/jobs/ledger-codec.ts).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeHandle } from '../../src/jobs/handle.js';
import { encodeEvent, LEDGER_VERSION } from '../../src/jobs/ledger-codec.js';
import { countedCredits } from '../../src/jobs/reconcile.js';
import type { JobPatch, JobRecord, NewJobRecord } from '../../src/jobs/store.js';

export interface Ledger01 {
  dir: string;
  secret: Buffer;
  recordIntent(rec: NewJobRecord, at?: Date): JobRecord;
  update(id: string, patch: JobPatch): JobRecord;
  consumeNonce(nonce: string, expiresAt: Date): void;
  /** Newest first, as 0.1 listed them. */
  list(): JobRecord[];
  /** What 0.1 counted toward the day since `since` (countedCredits over the records). */
  spendSince(since: Date): number;
}

export function writeLedger01(dir: string): Ledger01 {
  mkdirSync(join(dir, 'nonces'), { recursive: true });
  const secret = randomBytes(32);
  writeFileSync(join(dir, 'secret'), secret, { mode: 0o600 });
  const file = join(dir, 'ledger.jsonl');
  const records: JobRecord[] = [];
  const line = (type: 'intent' | 'update', id: string, at: string, data: Record<string, unknown>) =>
    appendFileSync(file, encodeEvent({ v: LEDGER_VERSION, type, id, at, data }));
  return {
    dir,
    secret,
    recordIntent(rec, when = new Date()) {
      const id = randomUUID();
      const at = when.toISOString();
      const r: JobRecord = {
        id,
        handle: rec.handle ?? encodeHandle({ kind: 'submission', id }),
        tool: rec.tool,
        kind: rec.kind,
        fingerprint: rec.fingerprint,
        summary: rec.summary,
        estimate: rec.estimate,
        consent: rec.consent,
        outcome: rec.outcome ?? 'pending',
        status: rec.status ?? 'submitted',
        requestId: undefined,
        remote: rec.remote,
        outputs: [],
        reason: undefined,
        creditsCharged: undefined,
        creditsRefunded: undefined,
        originalUrl: rec.originalUrl,
        owner: rec.owner,
        createdAt: at,
        updatedAt: at,
      };
      const { id: _id, ...data } = r;
      line('intent', id, at, data);
      records.push(r);
      return structuredClone(r);
    },
    update(id, patch) {
      const r = records.find((x) => x.id === id);
      if (!r) throw new Error(`no record ${id}`);
      const at = new Date().toISOString();
      line('update', id, at, patch as Record<string, unknown>);
      Object.assign(r, patch, { updatedAt: at });
      return structuredClone(r);
    },
    consumeNonce(nonce, expiresAt) {
      const name = createHash('sha256').update(nonce).digest('hex');
      writeFileSync(join(dir, 'nonces', name), String(expiresAt.getTime()));
    },
    list() {
      return structuredClone([...records].reverse());
    },
    spendSince(since) {
      return records
        .filter((r) => Date.parse(r.createdAt) >= since.getTime())
        .reduce((s, r) => s + countedCredits(r), 0);
    },
  };
}
