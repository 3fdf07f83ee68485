/**
 * Turns metrics on when the configuration asks (src/telemetry/metrics-config.ts), in both transports: the
 * OpenTelemetry SDK is imported here, dynamically, and only then (with metrics off nothing of it loads:
 * test/telemetry/metrics-off.test.ts). Returns undefined when off.
 */

import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { registerSecret } from '../log.js';
import { packageVersion } from '../package-version.js';
import type { Store } from '../store/types.js';
import { boundedFlush } from './flush-bound.js';
import { setMetricsSink } from './metrics.js';
import type { MetricsRuntime } from './metrics-instruments.js';

/** Open jobs older than this are not counted by the gauge (the follower's horizon too: a job is final by then). */
const OPEN_JOBS_HORIZON_MS = 30 * 24 * 3600 * 1000;
/** The gauge reads at most this many open records per scrape (a count beyond it reads as this figure). */
const OPEN_JOBS_CAP = 10_000;

export interface StartedMetrics extends MetricsRuntime {
  /** The gauges read from `store` from now on: open jobs, the event outbox's depth and age. */
  observeStore(store: Store, now?: () => number): void;
}

export async function startMetrics(config: Pick<Config, 'metrics'>, log: Logger): Promise<StartedMetrics | undefined> {
  const m = config.metrics;
  if (!m) return undefined;
  if (m.token) registerSecret(m.token);
  const { createMetricsRuntime } = await import('./metrics-instruments.js');
  const rt = createMetricsRuntime({
    otlp: m.otlp,
    exportIntervalMs: m.exportIntervalMs,
    prometheus: m.token !== undefined,
    serviceVersion: packageVersion(),
    onGaugeError: (err) => log.warn('metrics: a gauge could not read the store', { error: String(err) }),
  });
  setMetricsSink(rt.sink);
  log.info(`metrics on:${m.otlp ? ' OTLP export' : ''}${m.token ? ' /metrics (bearer token)' : ''}`);
  // Once: the serving process closes it before the store (the last export reads the gauges from it) and again on
  // its way out when the store never opened.
  let closed: Promise<void> | undefined;
  return {
    ...rt,
    observeStore(store, now = Date.now) {
      rt.observe({
        async openJobs() {
          const recs = await store.list({
            status: ['submitted', 'processing'],
            since: new Date(now() - OPEN_JOBS_HORIZON_MS),
            limit: OPEN_JOBS_CAP,
          });
          const by = new Map<string, number>();
          for (const r of recs) by.set(r.tool, (by.get(r.tool) ?? 0) + 1);
          return by;
        },
        async outbox() {
          let depth = 0;
          let oldest: number | undefined;
          for (const s of await store.deliverySummary()) {
            depth += s.due;
            if (s.oldestDue !== undefined) oldest = Math.min(oldest ?? s.oldestDue, s.oldestDue);
          }
          return { depth, oldestAgeSeconds: oldest === undefined ? undefined : Math.max(0, now() - oldest) / 1000 };
        },
      });
    },
    close() {
      closed ??= (async () => {
        setMetricsSink(undefined);
        await boundedFlush(rt.close());
      })();
      return closed;
    },
  };
}
