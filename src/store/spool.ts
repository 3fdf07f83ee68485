/**
 * The local write-ahead spool (issue 19 item 1, issue 27 item 4, invariant 3): once the platform has answered a
 * paid POST, its job id and request id reach durable storage before the tool answers, even when the store is
 * unreachable at that moment (a PostgreSQL partition or restart, a locked SQLite file), and even when the
 * process is killed while the store write waits.
 *
 * `withSpool(store, dir)` wraps a store. Its `settle` first appends the answer to this process's journal and
 * fsyncs it (spool-journal.ts), then writes the store, then marks the line done. kill -9 at any instant after
 * the append leaves the line for the next process on the state dir, which claims and replays it. When the store
 * is unreachable the call answers as settled, the record marked "recorded locally", and a background replay
 * (every `replayEveryMs`, and at once at start-up) writes the answer once the store is back. When the store
 * answers and refuses a line (a constraint, a tampered line), the line goes to a dead-letter file, named in the
 * log and by `genplat-mcp doctor`, and blocks nothing behind it.
 *
 * Reads overlay what waits for the store, so `list_jobs`, `get_job` and the owner check see the job (its
 * handle, platform id and owner) while the store is away. The overlay takes only a settlement's own fields from
 * a line; the rest (owner, tool, quote) comes from the store's record or from the intent this process admitted,
 * never from the file. The intent itself was committed by `admit` before the POST, so the duplicate guard sees a
 * spooled submission as `pending` (active) in the store until the replay lands.
 *
 * A replay is idempotent: an answer is written only to a record still `pending`, so replaying one the store
 * already took (a crash between the store write and the done marker, an acknowledgement lost) changes nothing.
 */
import { mkdirSync } from 'node:fs';
import { type JobRef, jobKey } from '../jobs/handle.js';
import type { PaidStep } from '../kill-steps.js';
import type { Logger } from '../log.js';
import { type SpoolEntry, SpoolJournal } from './spool-journal.js';
import { HEARTBEAT_MS } from './spool-liveness.js';
import { notRecordedNote } from './spool-notes.js';
import type { JobRecord, Observation, Settlement, Store } from './types.js';
import { isStoreUnreachable } from './unreachable.js';

/** What the agent and list_jobs are told about a job the store does not hold yet. */
export const SPOOLED_NOTE =
  'Recorded locally (spool), not yet in the shared store: the job exists and its handle is valid; the store gets it as soon as it is reachable.';

/**
 * 5 s between replays: a blink of the database heals within one interval, and a replay against a store that is
 * still down costs one failed connection attempt (bounded by GENPLAT_DB_CONNECT_TIMEOUT_MS).
 */
export const REPLAY_EVERY_MS = 5_000;

/** The fields of a `Settlement`: all an overlay or a replay takes from an answer. */
const SETTLEMENT_KEYS = [
  'outcome',
  'handle',
  'ref',
  'kind',
  'status',
  'requestId',
  'remote',
  'outputs',
  'creditsCharged',
  'platformEstimate',
  'originalUrl',
  'reason',
] as const satisfies readonly (keyof Settlement)[];

function settlementOnly(s: Settlement): Settlement {
  const out: Record<string, unknown> = {};
  for (const k of SETTLEMENT_KEYS) if (s[k] !== undefined) out[k] = s[k];
  return out as unknown as Settlement;
}

export interface SpooledStore extends Store {
  /** Answers waiting for the store (its write failed as unreachable, or claimed from a dead process). */
  readonly spooled: number;
  /** Writes waiting answers into the store now; resolves with how many still wait. */
  replay(): Promise<number>;
  /** This process's dead-letter file (it exists once a line was refused). */
  readonly deadLetterFile: string;
}

export function withSpool(
  inner: Store,
  dir: string,
  log: Pick<Logger, 'warn' | 'info'>,
  opts: {
    replayEveryMs?: number;
    onStep?: ((step: PaidStep) => void) | undefined;
    /** A journal of another namespace is taken after this long without a heartbeat (spool-liveness.ts). */
    staleMs?: number;
  } = {},
): SpooledStore {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const journal = new SpoolJournal(dir, undefined, opts.staleMs);
  /**
   * Answers whose journal append failed (full disk, vanished state dir) while the store was unreachable: they
   * live only in memory, so they are said as such, and each replay tries the append again.
   */
  const unwritten = new Set<string>();
  /** Answers whose store write failed as unreachable (or claimed): replayed, and overlaid on reads. */
  const waiting = new Map<string, SpoolEntry>();
  /** Intents this process admitted: the base a waiting answer is shown over when the store cannot be read. */
  const admitted = new Map<string, JobRecord>();
  let replaying: Promise<number> | undefined;

  const note = (e: SpoolEntry) => (unwritten.has(e.id) ? notRecordedNote(e.settlement) : SPOOLED_NOTE);
  const overlay = (r: JobRecord | undefined): JobRecord | undefined => {
    if (!r) return r;
    const e = waiting.get(r.id);
    return e ? spooledRecord(e, r, note(e)) : r;
  };
  /** The intent this process admitted, when it has one: never the file's idea of the owner. */
  const local = (e: SpoolEntry) => spooledRecord(e, admitted.get(e.id), note(e));

  /** A line the store refused: set aside for the operator, out of the replay, and logged with the file. */
  const refuse = (e: SpoolEntry, why: unknown) => {
    const reason = why instanceof Error ? why.message : String(why);
    const file = journal.deadLetter(e, reason);
    waiting.delete(e.id);
    admitted.delete(e.id);
    log.warn('spool: the store refused a POST answer; moved to the dead-letter file (genplat-mcp doctor)', {
      ledger: e.id,
      handle: e.settlement.handle,
      requestId: e.settlement.requestId,
      file,
      error: reason,
    });
  };

  const replay = async (): Promise<number> => {
    for (const id of unwritten) {
      const e = waiting.get(id);
      try {
        if (e) journal.append(e);
        unwritten.delete(id);
        if (e) log.warn('spool: a POST answer held only in memory is now on disk', { ledger: id });
      } catch {
        break; // still cannot write: the next round tries again
      }
    }
    for (const e of journal.claim((file, reason) =>
      log.warn('spool: an unreadable line moved to the dead-letter file', { file, reason, dead: journal.deadFile }),
    ))
      waiting.set(e.id, e);
    for (const e of [...waiting.values()]) {
      if (!waiting.has(e.id)) continue;
      try {
        const current = await inner.get(e.id);
        if (!current) {
          // The store answers but has no such record (a spool left from another database).
          refuse(e, 'the store has no record with this ledger id');
          continue;
        }
        // Otherwise the answer had landed after all (its acknowledgement was lost, or a crash came before the
        // done marker) and later polls may have moved the record on: writing it again would move it back.
        if (current.outcome === 'pending') await inner.settle(e.id, e.settlement);
        log.info('spool: settlement written to the store', { ledger: e.id });
      } catch (err) {
        if (!isStoreUnreachable(err)) {
          refuse(e, err);
          continue;
        }
        // Last in line next time: an error taken for "unreachable" that is really this line's own never keeps
        // the lines behind it waiting for more than one round.
        waiting.delete(e.id);
        waiting.set(e.id, e);
        log.warn('spool: the store is still unreachable; will retry', { spooled: waiting.size, error: String(err) });
        return waiting.size;
      }
      waiting.delete(e.id);
      admitted.delete(e.id);
      unwritten.delete(e.id);
      journal.done(e.id);
    }
    return waiting.size;
  };
  const replayOnce = () => {
    replaying ??= replay().finally(() => {
      replaying = undefined;
    });
    return replaying;
  };

  const timer = setInterval(() => void replayOnce().catch(() => {}), opts.replayEveryMs ?? REPLAY_EVERY_MS);
  timer.unref();
  // The journal's heartbeat: a server in another pid namespace on this state dir sees it alive (spool-liveness.ts).
  const beat = setInterval(() => journal.heartbeat(), HEARTBEAT_MS);
  beat.unref();
  // Start-up: what an earlier process left is replayed at once, not after the first interval.
  void replayOnce().catch(() => {});

  const refKey = (ref: JobRef | undefined) => (ref && ref.kind !== 'submission' ? jobKey(ref) : undefined);

  return {
    get description() {
      return inner.description;
    },
    get spooled() {
      return waiting.size;
    },
    get deadLetterFile() {
      return journal.deadFile;
    },
    replay: replayOnce,
    async admit(i, r, rule) {
      const res = await inner.admit(i, r, rule);
      if (res.admitted) admitted.set(res.record.id, res.record);
      return res;
    },
    readAdmissionFacts: (r) => inner.readAdmissionFacts(r),
    async admitBundle(items, r, rule) {
      const res = await inner.admitBundle(items, r, rule);
      // An item admitted claimed by its caller (`pending`) is about to be POSTed: its answer may need the spool.
      if (res.admitted) for (const rec of res.records) if (rec.outcome === 'pending') admitted.set(rec.id, rec);
      return res;
    },
    async claimItem(id, patch, from) {
      const rec = await inner.claimItem(id, patch, from);
      // A claimed item is about to be POSTed: its answer may need the spool, like an admitted call's.
      if (rec?.outcome === 'pending') admitted.set(rec.id, rec);
      return rec;
    },
    bundleItems: (id) => inner.bundleItems(id),
    queuedBundles: () => inner.queuedBundles(),
    // Files are not spooled: an upload or a staging that the store cannot take fails unsent.
    ...(inner.blobs ? { blobs: inner.blobs.bind(inner) } : {}),
    // Approvals are not spooled: a decision the store cannot take is refused, and nothing is sent.
    createApproval: (r) => inner.createApproval(r),
    approval: (id) => inner.approval(id),
    decideApproval: (id, d, judge) => inner.decideApproval(id, d, judge),
    approvalsAwaiting: (who, now) => inner.approvalsAwaiting(who, now),
    expireApprovals: (now) => inner.expireApprovals(now),
    approvalAudit: (f) => inner.approvalAudit(f),
    events: (after, limit) => inner.events(after, limit),
    fanOutEvents: (eps, since, after, now) => inner.fanOutEvents(eps, since, after, now),
    leaseDeliveries: (ep, holder, now, ms, limit) => inner.leaseDeliveries(ep, holder, now, ms, limit),
    recordDelivery: (d, holder, o) => inner.recordDelivery(d, holder, o),
    deliveryLog: (limit) => inner.deliveryLog(limit),
    deliverySummary: () => inner.deliverySummary(),
    track: (r) => inner.track(r),
    async settle(id, result) {
      const e: SpoolEntry = {
        v: 1,
        id,
        key: refKey(result.ref),
        settlement: settlementOnly(result),
        at: new Date().toISOString(),
      };
      // Write-ahead: the answer is on disk before the store is asked, so no crash from here on loses it.
      let onDisk = true;
      try {
        journal.append(e);
      } catch (err) {
        onDisk = false;
        // A full disk or a read-only state dir must not cost the store write that may well succeed.
        log.warn('spool: could not write the POST answer ahead of the store; writing the store only', {
          ledger: id,
          error: String(err),
        });
      }
      opts.onStep?.('answer_spooled');
      let settled: JobRecord;
      try {
        settled = await inner.settle(id, result);
      } catch (err) {
        if (!isStoreUnreachable(err)) {
          // Refused: retrying will not change the answer. The caller still gives the agent its handle.
          refuse(e, err);
          throw err;
        }
        waiting.set(id, e);
        if (!onDisk) {
          unwritten.add(id);
          // Loud: a charged job's ids exist only in this process; a restart before the store is back loses them.
          log.warn('NOT RECORDED ANYWHERE: store unreachable and the spool cannot be written; job ids only in memory', {
            ledger: id,
            handle: e.settlement.handle,
            remote: e.settlement.remote,
            requestId: e.settlement.requestId,
            error: String(err),
          });
          return local(e);
        }
        log.warn('store unreachable after the POST: settlement spooled locally', { ledger: id, error: String(err) });
        return local(e);
      }
      opts.onStep?.('answer_stored');
      journal.done(id);
      admitted.delete(id);
      return settled;
    },
    async observe(id, patch: Observation) {
      // A poll of a spooled job: land the settlement first, so the observation applies to a settled record.
      if (waiting.has(id)) await replayOnce();
      return inner.observe(id, patch);
    },
    async get(idOrHandle) {
      const found = overlay(await inner.get(idOrHandle));
      if (found) return found;
      const e = [...waiting.values()].find((x) => x.settlement.handle === idOrHandle);
      return e ? overlay(await inner.get(e.id).catch(() => undefined)) : undefined;
    },
    async getByRef(ref) {
      const key = refKey(ref);
      const e = key ? [...waiting.values()].find((x) => x.key === key) : undefined;
      let found: JobRecord | undefined;
      try {
        found = await inner.getByRef(ref);
      } catch (err) {
        // Only a job this process admitted may be answered without the store, and then with its owner (issue 19
        // review: answering "no record" would let resolveJob treat another caller's job as nobody's). Anything
        // else: the store's error, as without a spool.
        if (!e || !admitted.has(e.id)) throw err;
        return local(e);
      }
      if (found) return overlay(found);
      if (!e) return undefined;
      return overlay(await inner.get(e.id).catch(() => undefined)) ?? (admitted.has(e.id) ? local(e) : undefined);
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
      clearInterval(beat);
      await replaying?.catch(() => {});
      journal.close();
      await inner.close();
    },
  };
}

/** Who owns a job whose intent this process does not hold: nobody a caller can match (stdio excepted). */
const UNKNOWN_OWNER = '\u0000unknown';

/**
 * The record as it will be once the replay lands: `base` (the store's record, or the intent this process
 * admitted) with the answer's settlement fields over it, and only those. Without a base only the settlement's
 * own fields are known; the owner is then unknown and an HTTP caller is not shown the job.
 */
function spooledRecord(e: SpoolEntry, base: JobRecord | undefined, note: string): JobRecord {
  const b = base ?? ({ id: e.id, owner: UNKNOWN_OWNER, outputs: [] } as unknown as JobRecord);
  const s = settlementOnly(e.settlement);
  // An answer held only in memory says so above any reason of its own: that is what the reader must act on.
  const reason = note === SPOOLED_NOTE ? (s.reason ?? note) : note;
  return { ...b, ...s, outputs: s.outputs ?? b.outputs ?? [], reason };
}
