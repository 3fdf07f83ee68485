/**
 * Event delivery and the outbox in metrics (issue 30 item 2): with the endpoint answering 503, the failed
 * attempts are counted as `retry` and the outbox gauge shows what waits; once it answers, the deliveries are
 * counted `delivered` and the outbox drains to 0. Each count equals the store's own delivery log. On both stores
 * (the outbox gauges read `deliverySummary`, SQLite and PostgreSQL alike).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../events/receiver.js';
import { billableExample } from '../helpers/examples.js';
import { type HttpFixture, sc, startHttpFixture, TOKEN_A } from '../http/helpers.js';
import { createTestSchema, dropTestDatabases } from '../store/pg-helper.js';
import { parseProm, type Sample, scrape, sum } from './prom-text.js';

const METRICS_TOKEN = 'metrics-scraper-0123456789';
let fx: HttpFixture;
let receiver: Receiver;
afterAll(dropTestDatabases);

async function metricsUntil(probe: (s: Sample[]) => boolean, what: string): Promise<Sample[]> {
  const end = Date.now() + 60_000;
  for (;;) {
    const s = parseProm((await scrape(fx, `Bearer ${METRICS_TOKEN}`)).text);
    if (probe(s)) return s;
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(['SQLite', 'PostgreSQL'] as const)('event delivery metrics (%s)', (backend) => {
  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.mode = '503';
    fx = await startHttpFixture({
      confirm: { mode: 'never' },
      env: {
        GENPLAT_METRICS_TOKEN: METRICS_TOKEN,
        GENPLAT_EVENTS_URL: receiver.url,
        GENPLAT_EVENTS_SECRET: receiver.secret,
        ...(backend === 'PostgreSQL' ? { GENPLAT_DATABASE_URL: await createTestSchema() } : {}),
      },
    });
  });
  afterAll(async () => {
    await fx?.close();
    await receiver?.close();
  });

  it('counts retries and deliveries as the delivery log does, and the outbox drains to 0', async () => {
    expect(fx.rt.jobs.description).toMatch(backend === 'PostgreSQL' ? /postgres/i : /sqlite/i);
    const c = await fx.connect(TOKEN_A);
    const r = await c.call('create_talking_video', billableExample('create_talking_video').args(fx.sim, 1));
    expect(sc(r).status).toBe('submitted');

    const failing = await metricsUntil(
      (s) => sum(s, 'genplat_events_delivery_attempts_total', { outcome: 'retry' }) >= 1,
      'a failed attempt',
    );
    // The endpoint still answers 503: what was tried waits in the outbox.
    expect(sum(failing, 'genplat_events_outbox_depth')).toBeGreaterThanOrEqual(1);

    receiver.mode = 'ok';
    const drained = await metricsUntil(
      (s) =>
        s.some((x) => x.name === 'genplat_events_outbox_depth' && x.value === 0) &&
        receiver.received.some((e) => e.type === 'job.completed'),
      'the outbox drained',
    );
    const log = await fx.rt.jobs.deliveryLog();
    expect(sum(drained, 'genplat_events_delivery_attempts_total', { outcome: 'delivered' })).toBe(
      log.filter((a) => a.status !== undefined && a.status < 300).length,
    );
    expect(sum(drained, 'genplat_events_delivery_attempts_total', { outcome: 'retry' })).toBe(
      log.filter((a) => a.status === 503).length,
    );
    expect(sum(drained, 'genplat_events_outbox_age')).toBe(0);
    // One lag per delivered POST.
    expect(sum(drained, 'genplat_events_delivery_lag_count')).toBe(
      sum(drained, 'genplat_events_delivery_attempts_total', { outcome: 'delivered' }),
    );
  });
});
