/**
 * The local write-ahead spool (issue 19 item 1, invariant 3): once the platform has answered a paid POST, its
 * job id and request id must reach durable storage before the tool answers, even when the store is
 * unreachable at that moment (a PostgreSQL partition or restart, a locked SQLite file).
 *
 * `withSpool(store, dir)` wraps a store. Its `settle` tries the store; when that throws, the settlement is
 * appended to a file in `<state dir>/spool/` and fsynced, and the call answers as settled, with the record
 * marked "recorded locally". A background replay (every `replayEveryMs`, and at once at start-up) writes
 * spooled settlements into the store and removes them once the store took them. Reads overlay what is
 * spooled, so `list_jobs`, `get_job` and the owner check see the job (its handle, platform id and owner) while
 * the store is away. The intent itself was committed by `admit` before the POST, so the duplicate guard sees a
 * spooled submission as `pending` (active) in the store until the replay lands.
 *
 * One file per process (`<pid>-<random>.jsonl`), so two processes on one state dir never interleave writes;
 * files a dead process left are claimed by `rename` (atomic: exactly one claimer) at the next replay. A
 * settlement is idempotent, so replaying one twice (a crash between the store write and the file rewrite)
 * changes nothing.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { type JobRef, jobKey } from '../jobs/handle.js';
import type { Logger } from '../log.js';
import type { JobRecord, Observation, Settlement, Store } from './types.js';

/** What the agent and list_jobs are told about a job the store does not hold yet. */
export const SPOOLED_NOTE =
  'Recorded locally (spool), not yet in the shared store: the job exists and its handle is valid; the store gets it as soon as it is reachable.';

/**
 * 5 s between replays: a blink of the database heals within one interval, and a replay against a store that is
 * still down costs one failed connection attempt (bounded by GENPLAT_DB_CONNECT_TIMEOUT_MS).
 */
export const REPLAY_EVERY_MS = 5_000;

interface SpoolEntry {
  v: 1;
  id: string;
  /** `jobKey` of the settlement's ref, so a handle finds its spooled record before the store has it. */
  key?: string | undefined;
  settlement: Settlement;
  /** The intent as admitted (owner, tool, quote…): the record can be shown even when the store cannot be read. */
  record?: JobRecord | undefined;
  at: string;
}

export interface SpooledStore extends Store {
  /** Spooled settlements not yet in the store. */
  readonly spooled: number;
  /** Writes spooled settlements into the store now; resolves with how many remain. */
  replay(): Promise<number>;
}

export function withSpool(
  inner: Store,
  dir: string,
  log: Pick<Logger, 'warn' | 'info'>,
  opts: { replayEveryMs?: number } = {},
): SpooledStore {
  mkdirSync(dir, { recursive: true });
  const own = join(dir, `${process.pid}-${randomBytes(4).toString('hex')}.jsonl`);
  const entries = new Map<string, SpoolEntry>();
  /** Intents this process admitted and has not settled yet: what a spool entry carries of the record. */
  const admitted = new Map<string, JobRecord>();
  let replaying: Promise<number> | undefined;

  /** Appends one line and fsyncs it: on disk before the tool answers. */
  const append = (e: SpoolEntry) => {
    const fd = openSync(own, 'a');
    try {
      writeSync(fd, `${JSON.stringify(e)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  };
  /** Rewrites this process's file with what is still pending (temp + rename: never a half-written file). */
  const rewrite = () => {
    const tmp = `${own}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      for (const e of entries.values()) writeSync(fd, `${JSON.stringify(e)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, own);
  };
  /** Takes over files other (dead or restarted) processes left, and reads them into memory. */
  const claim = () => {
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.jsonl') || join(dir, name) === own || isAlive(name)) continue;
      // Named like a spool file of this process: if this process dies before it is folded in, the next claims it.
      const claimed = join(dir, `${process.pid}-claim-${randomBytes(4).toString('hex')}.jsonl`);
      try {
        renameSync(join(dir, name), claimed);
      } catch {
        continue; // another process claimed it first
      }
      for (const line of readFileSync(claimed, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        try {
          const e = JSON.parse(line) as SpoolEntry;
          if (e.v === 1 && typeof e.id === 'string') entries.set(e.id, e);
        } catch {
          log.warn('spool: skipped an unreadable line', { file: name });
        }
      }
      rewrite();
      rmSync(claimed, { force: true });
    }
  };

  const overlay = (r: JobRecord | undefined): JobRecord | undefined => {
    if (!r) return r;
    const e = entries.get(r.id);
    if (!e) return r;
    return spooledRecord({ ...e, record: r });
  };

  /** Entries the store can never take (it has no such record): kept aside, out of the replay, and logged. */
  const deadLetter = (e: SpoolEntry) => {
    const fd = openSync(join(dir, `dead-${process.pid}.jsonl.dead`), 'a');
    try {
      writeSync(fd, `${JSON.stringify(e)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  };

  const replay = async (): Promise<number> => {
    claim();
    for (const e of [...entries.values()]) {
      try {
        const current = await inner.get(e.id);
        if (!current) {
          // The store answers but has no such record (a spool left from another database): one bad entry must
          // not block the others for ever (issue 19 review). Kept in a dead-letter file for the operator.
          deadLetter(e);
          log.warn('spool: the store has no record for a spooled settlement; moved to the dead-letter file', {
            ledger: e.id,
            handle: e.settlement.handle,
          });
        } else if (current.outcome === 'pending') {
          await inner.settle(e.id, e.settlement);
          log.info('spool: settlement written to the store', { ledger: e.id });
        }
        // Otherwise the settle had committed after all (its acknowledgement was lost) and later polls may have
        // moved the record on: replaying the older settlement would move it back (issue 19 review).
      } catch (err) {
        log.warn('spool: the store still refuses; will retry', { spooled: entries.size, error: String(err) });
        return entries.size;
      }
      entries.delete(e.id);
      rewrite();
    }
    return entries.size;
  };
  const replayOnce = () => {
    replaying ??= replay().finally(() => {
      replaying = undefined;
    });
    return replaying;
  };

  const timer = setInterval(() => void replayOnce().catch(() => {}), opts.replayEveryMs ?? REPLAY_EVERY_MS);
  timer.unref();
  // Start-up: what an earlier process left is replayed at once, not after the first interval.
  void replayOnce().catch(() => {});

  const refKey = (ref: JobRef | undefined) => (ref && ref.kind !== 'submission' ? jobKey(ref) : undefined);

  return {
    get description() {
      return inner.description;
    },
    get spooled() {
      return entries.size;
    },
    replay: replayOnce,
    async admit(i, r, rule) {
      const res = await inner.admit(i, r, rule);
      if (res.admitted) admitted.set(res.record.id, res.record);
      return res;
    },
    readAdmissionFacts: (r) => inner.readAdmissionFacts(r),
    admitCampaign: (items, r, rule) => inner.admitCampaign(items, r, rule),
    async claimCampaignItem(id, patch) {
      const rec = await inner.claimCampaignItem(id, patch);
      // A claimed item is about to be POSTed: its answer may need the spool, like an admitted call's.
      if (rec?.outcome === 'pending') admitted.set(rec.id, rec);
      return rec;
    },
    campaignItems: (id) => inner.campaignItems(id),
    queuedCampaigns: () => inner.queuedCampaigns(),
    // Files are not spooled: an upload or a staging that the store cannot take fails unsent.
    ...(inner.blobs ? { blobs: inner.blobs.bind(inner) } : {}),
    track: (r) => inner.track(r),
    async settle(id, result) {
      try {
        const settled = await inner.settle(id, result);
        admitted.delete(id);
        return settled;
      } catch (err) {
        // The POST was answered: its ids must not live only in memory. Spooled, fsynced, replayed later.
        const e: SpoolEntry = {
          v: 1,
          id,
          key: refKey(result.ref),
          settlement: result,
          record: admitted.get(id),
          at: new Date().toISOString(),
        };
        admitted.delete(id);
        entries.set(id, e);
        append(e);
        log.warn('store unreachable after the POST: settlement spooled locally', { ledger: id, error: String(err) });
        return spooledRecord(e);
      }
    },
    async observe(id, patch: Observation) {
      // A poll of a spooled job: land the settlement first, so the observation applies to a settled record.
      if (entries.has(id)) await replayOnce();
      return inner.observe(id, patch);
    },
    async get(idOrHandle) {
      const found = overlay(await inner.get(idOrHandle));
      if (found) return found;
      const e = [...entries.values()].find((x) => x.settlement.handle === idOrHandle);
      return e ? overlay(await inner.get(e.id).catch(() => undefined)) : undefined;
    },
    async getByRef(ref) {
      const key = refKey(ref);
      const e = key ? [...entries.values()].find((x) => x.key === key) : undefined;
      let found: JobRecord | undefined;
      try {
        found = await inner.getByRef(ref);
      } catch (err) {
        // Only a job this spool holds may be answered without the store, and then as the spooled record with its
        // owner (issue 19 review: answering "no record" would let resolveJob treat another caller's job as
        // nobody's). Anything else: the store's error, as without a spool.
        if (!e?.record) throw err;
        return spooledRecord(e);
      }
      if (found) return overlay(found);
      if (!e) return undefined;
      return overlay(await inner.get(e.id).catch(() => undefined)) ?? (e.record ? spooledRecord(e) : undefined);
    },
    async list(filter) {
      return (await inner.list(filter)).map((r) => overlay(r) as JobRecord);
    },
    spendSince: (s, o) => inner.spendSince(s, o),
    auditEvents: (f) => inner.auditEvents(f),
    consentKey: () => inner.consentKey(),
    tryLease: (k, ms, h) => inner.tryLease(k, ms, h),
    schemaVersion: () => inner.schemaVersion(),
    async close() {
      clearInterval(timer);
      await replaying?.catch(() => {});
      await inner.close();
    },
  };
}

/** A live process's spool file is its own to replay; only a dead process's file is claimed. */
function isAlive(file: string): boolean {
  const pid = Number(/^(\d+)-/.exec(file)?.[1]);
  if (!Number.isInteger(pid) || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The record as it will be once the replay lands: the admitted intent (owner, tool, quote) with the settlement
 * over it. Without the intent (an entry claimed from another process while the store is down) only the
 * settlement's own fields are known; the owner is then unknown and an HTTP caller is not shown the job.
 */
function spooledRecord(e: SpoolEntry): JobRecord {
  const base = e.record ?? ({ id: e.id, owner: '\u0000unknown', outputs: [] } as unknown as JobRecord);
  return {
    ...base,
    ...(e.settlement as Partial<JobRecord>),
    outputs: e.settlement.outputs ?? base.outputs ?? [],
    reason: e.settlement.reason ?? SPOOLED_NOTE,
  };
}
