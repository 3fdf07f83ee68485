/**
 * Review 5, finding 4: an endpoint's `callers`/`types` filter is applied once, when an event is fanned out into a
 * delivery row; the row is then delivered by whichever instance leases it, under that instance's config, without
 * asking the filter again. So after an operator narrows an endpoint to one caller (a restart, or a rolling deploy of
 * a fleet where an old instance still fans out), the backlog already fanned — every other caller's events waiting
 * while the receiver was down — is still delivered to the endpoint now restricted to Alice.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEventWorker } from '../../src/events/worker.js';
import { silentLogger } from '../../src/log.js';
import { rules } from '../events/outbox-suite.js';
import { startReceiver } from '../events/receiver.js';
import { newRecord, type TestDir, testDir } from '../helpers/store-helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('review5: a narrowed endpoint never hears another caller', () => {
  it('events fanned out under the old config are not delivered once the endpoint takes only Alice', async () => {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
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

    // Old config (or an old fleet instance): the endpoint takes every caller; the receiver is down.
    receiver.mode = '503';
    const before = startEventWorker({
      store: s,
      endpoints: [{ url: receiver.url, secret: receiver.secret }],
      log: silentLogger,
      retryForMs: 24 * 3_600_000,
      tickMs: 60_000,
    });
    await before.round();
    await before.close();

    // New config: the same endpoint now takes Alice only; the receiver is back.
    receiver.mode = 'ok';
    const after = startEventWorker({
      store: s,
      endpoints: [{ url: receiver.url, secret: receiver.secret, callers: ['token:bot:alice'] }],
      log: silentLogger,
      retryForMs: 24 * 3_600_000,
      tickMs: 60_000,
      now: () => Date.now() + 3_600_000,
    });
    cleanups.push(() => after.close());
    await after.round();
    await after.round();
    await after.round();
    expect(receiver.received.filter((e) => JSON.stringify(e.body).includes(bob)).map((e) => e.type)).toEqual([]);
  });
});
