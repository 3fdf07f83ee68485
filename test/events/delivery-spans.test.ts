/**
 * Event delivery as client spans (issue 30 item 1, docs/operate.md "Traces"): one `POST event` span per attempt,
 * with the event id, the attempt number, the receiver's host and its status; a refused attempt carries `error.type`
 * = the status. Never the endpoint's path (hook URLs carry credentials there), the signing secret or the body.
 * Real store, real worker, a loopback receiver that verifies the signature; spans in the SDK's in-memory exporter.
 */
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { startEventWorker } from '../../src/events/worker.js';
import { silentLogger } from '../../src/log.js';
import { startTracing, stopTracing } from '../../src/telemetry/traces.js';
import { scanForSecret } from '../helpers/secret-scan.js';
import { newRecord, type TestDir, testDir } from '../helpers/store-helpers.js';
import { rules } from './outbox-suite.js';
import { startReceiver } from './receiver.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('event delivery spans', () => {
  it('one client span per attempt: refused with its status, then delivered; no secret, path or body', async () => {
    const exporter = new InMemorySpanExporter();
    await startTracing({ exporters: [] }, { exporter });
    cleanups.push(() => stopTracing());
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const d: TestDir = await testDir();
    cleanups.push(() => d.cleanup());
    const s = await d.open();
    const owner = 'token:bot:carol';
    const r = await s.admit(newRecord({ owner, ownerName: 'Carol' }), rules(owner), () => undefined);
    if (!r.admitted) throw new Error('not admitted');
    await s.settle(r.record.id, { outcome: 'submitted', handle: 'actor_video:p:v', status: 'processing' });

    receiver.mode = '503';
    let at = Date.now();
    const worker = startEventWorker({
      store: s,
      endpoints: [{ url: receiver.url, secret: receiver.secret }],
      log: silentLogger,
      retryForMs: 24 * 3_600_000,
      tickMs: 60_000,
      now: () => at,
    });
    cleanups.push(() => worker.close());
    await worker.round();
    receiver.mode = 'ok';
    at += 3_600_000;
    await worker.round();

    const spans = exporter.getFinishedSpans().filter((x) => x.name === 'POST event');
    expect(receiver.received.length).toBeGreaterThan(0);
    const ids = new Set(receiver.received.map((e) => e.id));
    const first = spans.filter((x) => x.attributes['genplat.event.attempt'] === 1);
    const second = spans.filter((x) => x.attributes['genplat.event.attempt'] === 2);
    expect(first.length).toBe(ids.size);
    expect(second.length).toBe(ids.size);
    for (const x of first) {
      expect(x.kind).toBe(2);
      expect(x.attributes).toMatchObject({
        'http.request.method': 'POST',
        'server.address': '127.0.0.1',
        'http.response.status_code': 503,
        'error.type': '503',
      });
      expect(ids.has(String(x.attributes['genplat.event.id']))).toBe(true);
    }
    for (const x of second) {
      expect(x.attributes['http.response.status_code']).toBeLessThan(300);
      expect(x.attributes['error.type']).toBeUndefined();
    }
    const sources = spans.map((x) => ({ name: x.name, text: JSON.stringify({ a: x.attributes, n: x.name }) }));
    expect(scanForSecret(receiver.secret, sources)).toEqual([]);
    expect(sources.map((x) => x.text).join('\n')).not.toContain('/events');
    expect(sources.map((x) => x.text).join('\n')).not.toContain(owner);
  });
});
