/**
 * The outbox sweep of a serving process (issue 21 item 3, issue 28 item 7), like the spool's replay
 * (src/store/spool.ts): at start-up and every few seconds it sends whatever queued item no caller is sending (the
 * rest of a campaign whose process stopped: a crash, kill -9, a deploy), so nothing is stranded: the next process
 * to start, or any instance of the fleet, finishes it without waiting for the agent. Per bundle one instance at a
 * time holds a lease (`Store.tryLease`); the item claim in the store (queued → pending) is what guarantees "at
 * most one POST". What is sent, released or left is decided once, in outbox.ts `sendBundle` (issue 27: only
 * acknowledged items consented for this process's account and base URL, none by a read-only process).
 *
 * Held requests (issue 28 item 5): each tick also expires overdue approvals (the desk's `expire()`: their held
 * items released) and finishes held items whose approval closed while nobody acted on it (approval-send.ts
 * `recover`: a kill -9 after the approval's commit). `approvals.onDecided` is what a decision that closes an
 * approval sets off on this instance (`ServerDeps.onApprovalDecided`); it kicks this sweep to send.
 */
import { hostname } from 'node:os';
import { type StoreApprovalDesk, storeApprovalDesk } from '../approvals/store-desk.js';
import type { Catalog } from '../catalog.js';
import type { PlatformClient } from '../client/types.js';
import type { Config } from '../config.js';
import type { ToolContext } from '../define-tool.js';
import type { FileServices } from '../files/file-services.js';
import type { Poller } from '../jobs/poller.js';
import type { ConsentedFor, JobStore } from '../jobs/store.js';
import type { PaidStep } from '../kill-steps.js';
import type { Logger } from '../log.js';
import { personKeyIn } from '../people/same-person.js';
import { type ApprovalSender, approvalSender } from './approval-send.js';
import { consentedFor } from './consented-for.js';
import { type ItemSpecs, sweepOutbox } from './outbox.js';

/** How often a serving process looks for queued items (a restart also looks at once). */
export const OUTBOX_SWEEP_EVERY_MS = 5_000;
/** One instance sends a campaign at a time; a stopped holder's lease runs out after this. */
const LEASE_MS = 30_000;

export interface OutboxSweepDeps {
  config: Config;
  client: PlatformClient;
  jobs: JobStore;
  log: Logger;
  catalog: Catalog;
  poller: Poller;
  itemSpec: ItemSpecs;
  /** HTTP mode: uploads and the self stager, so items naming `upload:<id>` can be staged (src/files/). */
  files?: FileServices | undefined;
  now?: () => number;
  onStep?: ((step: PaidStep) => void) | undefined;
  everyMs?: number;
}

export interface OutboxSweep {
  close(): void;
  sweep(): Promise<number>;
  /** What this instance does when an approval closes or expires. */
  approvals: ApprovalSender;
  /** The approval desk over the store, acting through `approvals`. */
  desk: StoreApprovalDesk;
}

export function startOutboxSweep(deps: OutboxSweepDeps): OutboxSweep {
  const holder = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2)}`;
  const ctx: ToolContext = {
    config: deps.config,
    client: deps.client,
    jobs: deps.jobs,
    catalog: deps.catalog,
    poller: deps.poller,
    log: deps.log,
    signal: new AbortController().signal,
    owner: undefined,
    ...(deps.files ? { files: deps.files } : {}),
    progress: async () => {},
  };
  let running: Promise<number> | undefined;
  // A kick while a sweep runs (it may be past the bundle already) asks for one more run after it.
  let again = false;
  const now = deps.now ?? Date.now;
  const approvals = approvalSender({
    config: deps.config,
    jobs: deps.jobs,
    log: deps.log,
    now,
    ctx,
    itemSpec: deps.itemSpec,
    kick: () => quietly(),
    holder,
    onStep: deps.onStep,
  });
  const desk = storeApprovalDesk(deps.jobs, {
    onDecided: approvals.onDecided,
    onExpired: approvals.onExpired,
    personOf: personKeyIn(deps.config.people),
    nameOf: (id) => deps.config.people.get(id)?.name,
    now,
    log: deps.log,
  });
  const approvalsTick = async () => {
    if (!deps.config.approvals) return;
    await desk.expire();
    await approvals.recover();
  };
  // Campaigns this process declined to send (read-only, another account or base URL): logged once each.
  const told = new Set<string>();
  let mine: Promise<ConsentedFor> | undefined;
  const sweep = () => {
    mine ??= consentedFor(deps.config, deps.jobs).catch((err: unknown) => {
      mine = undefined;
      throw err;
    });
    if (running) {
      again = true;
      return running;
    }
    running = mine
      .then(async (m) => {
        await approvalsTick().catch((err: unknown) =>
          deps.log.warn('held approvals not finished this tick; retrying', { error: String(err) }),
        );
        return m;
      })
      .then((m) =>
        sweepOutbox(deps.itemSpec, ctx, {
          jobs: deps.jobs,
          log: deps.log,
          now,
          onStep: deps.onStep,
          holder,
          leaseMs: LEASE_MS,
          mine: m,
          readOnly: deps.config.readOnly,
          told,
        }),
      )
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          quietly();
        }
      });
    return running;
  };
  const quietly = () =>
    void sweep().catch((err) => deps.log.warn('outbox sweep failed; retrying', { error: String(err) }));
  const timer = setInterval(quietly, deps.everyMs ?? OUTBOX_SWEEP_EVERY_MS);
  timer.unref();
  quietly();
  return { close: () => clearInterval(timer), sweep, approvals, desk };
}
