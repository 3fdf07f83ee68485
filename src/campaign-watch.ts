/**
 * The stdio bin's campaign sender, started only once a campaign has queued items (issue 21 item 3). The sender
 * needs every creator tool's module (the item specs) and the paid path, which the deferred start keeps out of the
 * first launch (src/server-deferred.ts): so until the store holds a queued item, this only asks the store "any
 * queued campaign?" (one indexed query) at start-up and every `OUTBOX_SWEEP_EVERY_MS`; the first yes loads the
 * sender, which then sweeps on its own timer. A process restarted after kill -9 mid-campaign finds the queued items
 * at its first look and finishes them without waiting for the agent.
 */
import type { Catalog } from './catalog.js';
import type { PlatformClient } from './client/types.js';
import type { Config } from './config.js';
import type { FileServices } from './files/file-services.js';
import type { JobStore } from './jobs/store.js';
import type { PaidStep } from './kill-steps.js';
import type { Logger } from './log.js';

/** The same pace as the sender's own sweep (src/paid/outbox-sweep.ts `OUTBOX_SWEEP_EVERY_MS`, 5 s). */
const LOOK_EVERY_MS = 5_000;

export interface CampaignWatchDeps {
  config: Config;
  client: PlatformClient;
  jobs: JobStore;
  log: Logger;
  onStep?: ((step: PaidStep) => void) | undefined;
  /** The sandbox's loopback staging (src/files/sandbox-staging.ts), so an item's local file can be staged. */
  files?: FileServices | undefined;
  /** Tests: a shorter look interval. */
  everyMs?: number;
}

export function watchQueuedCampaigns(deps: CampaignWatchDeps): { close(): Promise<void> } {
  let stopped = false;
  let started: { close(): void; poller: { close(): void } } | undefined;
  let looking: Promise<void> | undefined;
  const look = async () => {
    if (stopped || started) return;
    if ((await deps.jobs.queuedBundles()).length === 0) return;
    const [{ startOutboxSweep }, { CAMPAIGN_ITEM_SPECS }, { createPoller }, { createCatalog }, { finalJobCleanup }] =
      await Promise.all([
        import('./paid/outbox-sweep.js'),
        import('../tools/video/create-campaign.js'),
        import('./jobs/poller.js'),
        import('./catalog.js'),
        import('./files/files-deps.js'),
      ]);
    if (stopped || started) return;
    clearInterval(timer);
    const poller = createPoller({
      client: deps.client,
      jobs: deps.jobs,
      log: deps.log,
      onFinal: finalJobCleanup(deps.config, deps.log),
    });
    const catalog: Catalog = createCatalog(deps.client);
    const sender = startOutboxSweep({
      config: deps.config,
      client: deps.client,
      jobs: deps.jobs,
      log: deps.log,
      catalog,
      poller,
      itemSpec: (tool) => CAMPAIGN_ITEM_SPECS.get(tool),
      onStep: deps.onStep,
      files: deps.files,
    });
    started = { close: () => sender.close(), poller };
  };
  const quietly = () => {
    looking ??= look()
      .catch((err) => deps.log.warn('looking for queued campaigns failed; retrying', { error: String(err) }))
      .finally(() => {
        looking = undefined;
      });
  };
  const timer = setInterval(quietly, deps.everyMs ?? LOOK_EVERY_MS);
  timer.unref();
  quietly();
  return {
    close: async () => {
      stopped = true;
      clearInterval(timer);
      await looking;
      started?.close();
      started?.poller.close();
    },
  };
}
