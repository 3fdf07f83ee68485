/**
 * Review 5, finding 1: GENPLAT_EVENTS_URL and a GENPLAT_EVENTS_ENDPOINTS entry with the same URL are accepted
 * together (the duplicate check runs inside the file only), and the worker keys endpoints by URL: the file entry's
 * `callers` filter is lost (the env endpoint's "every caller" fan-out wins) while its secret signs every delivery.
 * So the endpoint an operator restricted to Alice receives Bob's job events, signed with Alice's bot's secret.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadEventsConfig } from '../../src/events/config.js';
import { startEventWorker } from '../../src/events/worker.js';
import { silentLogger } from '../../src/log.js';
import { rules } from '../events/outbox-suite.js';
import { startReceiver } from '../events/receiver.js';
import { newRecord, type TestDir, testDir } from '../helpers/store-helpers.js';

const ENV_SECRET = `whsec_${Buffer.from('ffffffffffffffffffffffffffffffff').toString('base64')}`;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('review5: an endpoint restricted to one caller never hears another caller', () => {
  it('GENPLAT_EVENTS_URL duplicating a filtered file endpoint is refused, or at least keeps the filter', async () => {
    const receiver = await startReceiver(); // Alice's bot: verifies with the file entry's secret
    cleanups.push(() => receiver.close());
    const dir = mkdtempSync(join(tmpdir(), 'review5-ev-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'endpoints.json');
    writeFileSync(file, JSON.stringify([{ url: receiver.url, secret: receiver.secret, callers: ['token:bot:alice'] }]));
    const problems: string[] = [];
    const cfg = loadEventsConfig(
      { GENPLAT_EVENTS_URL: receiver.url, GENPLAT_EVENTS_SECRET: ENV_SECRET, GENPLAT_EVENTS_ENDPOINTS: file },
      (p) => p,
      problems,
    );
    if (problems.length > 0) return; // refused with a reason: fine
    if (!cfg) throw new Error('no events config');

    const d: TestDir = await testDir();
    cleanups.push(() => d.cleanup());
    const s = await d.open();
    const bob = 'token:bot:bob';
    const r = await s.admit(newRecord({ owner: bob, ownerName: 'Bob' }), rules(bob), () => undefined);
    if (!r.admitted) throw new Error('not admitted');
    await s.settle(r.record.id, { outcome: 'submitted', handle: 'actor_video:p:v', status: 'processing' });
    await s.observe(r.record.id, {
      status: 'completed',
      outputs: [{ url: 'https://cdn.example/bob.mp4', media: 'video' }],
    });
    const worker = startEventWorker({
      store: s,
      endpoints: cfg.endpoints,
      log: silentLogger,
      retryForMs: 3_600_000,
      tickMs: 60_000,
    });
    cleanups.push(() => worker.close());
    await worker.round();
    await worker.round();
    const bobs = receiver.received.filter((e) => JSON.stringify(e.body).includes(bob));
    expect(bobs.map((e) => e.type)).toEqual([]);
  });
});
