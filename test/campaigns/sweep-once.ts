/**
 * One serving process's campaign sender (src/paid/outbox-sweep.ts), built as the bin builds it but with `over`
 * its config and `aheadMs` added to its clock, swept `times` times over the harness's store; its log lines go to
 * `lines`. Tests of who may send queued items (another key, base URL, read-only) and of the grace period.
 */
import { createCatalog } from '../../src/catalog.js';
import { createPlatformClient } from '../../src/client/index.js';
import type { Config } from '../../src/config.js';
import { createPoller } from '../../src/jobs/poller.js';
import { createLogger } from '../../src/log.js';
import { startOutboxSweep } from '../../src/paid/outbox-sweep.js';
import { CAMPAIGN_ITEM_SPECS } from '../../tools/video/create-campaign.js';
import type { Harness } from '../helpers/harness.js';

export interface SweepOptions {
  over?: Partial<Config>;
  aheadMs?: number;
  lines?: string[];
  times?: number;
  /** Runs after sweep `i` (0-based) and before the next, in the same process (so under the same lease). */
  after?: (i: number) => Promise<void>;
}

export async function sweepOnce(h: Harness, o: SweepOptions = {}): Promise<void> {
  const lines = o.lines ?? [];
  const log = createLogger('debug', (l) => lines.push(l));
  const config = { ...h.config, ...o.over };
  const client = createPlatformClient({
    baseUrl: config.baseUrl!,
    apiKey: config.apiKey!,
    vendors: config.vendors,
    logger: log,
  });
  const poller = createPoller({ client, jobs: h.jobs, log });
  const sender = startOutboxSweep({
    config,
    client,
    jobs: h.jobs,
    log,
    catalog: createCatalog(client),
    poller,
    itemSpec: (tool) => CAMPAIGN_ITEM_SPECS.get(tool),
    now: () => Date.now() + (o.aheadMs ?? 0),
    // Only the sweeps this helper asks for.
    everyMs: 3_600_000,
  });
  try {
    for (let i = 0; i < (o.times ?? 1); i++) {
      await sender.sweep();
      await o.after?.(i);
    }
  } finally {
    sender.close();
    poller.close();
    await client.close();
  }
}
