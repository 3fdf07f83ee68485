/**
 * The fleet's pub/sub (src/store/pubsub.ts) on a real PostgreSQL (two instances = two LISTEN connections on one
 * database) and in process, and the SDK event bus over it (src/transports/event-bus.ts). No sleeping: every
 * delivery is awaited with vi.waitFor.
 */
import type { ServerEvent } from '@modelcontextprotocol/server';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { jobKey } from '../../src/jobs/handle.js';
import { createLogger } from '../../src/log.js';
import { createLocalPubSub, createPostgresPubSub, MAX_PAYLOAD_BYTES, type PubSub } from '../../src/store/pubsub.js';
import { pubSubEventBus, SERVER_EVENTS_CHANNEL } from '../../src/transports/event-bus.js';
import { JOB_HINT_CHANNEL, pubSubHints } from '../../src/webhooks/hints.js';
import { createTestDatabase, dropTestDatabases } from './pg-helper.js';

const log = createLogger('error', () => {});
const opened: PubSub[] = [];
afterEach(async () => {
  for (const p of opened.splice(0)) await p.close();
});
afterAll(dropTestDatabases);

let url: Promise<string> | undefined;
async function pgPubSub(reconnectMs = { min: 10, max: 50 }): Promise<PubSub> {
  url ??= createTestDatabase();
  const p = await createPostgresPubSub(await url, { log, reconnectMs });
  opened.push(p);
  return p;
}
function local(): PubSub {
  const p = createLocalPubSub(log);
  opened.push(p);
  return p;
}

const until = (fn: () => void) => vi.waitFor(fn, { timeout: 10_000, interval: 10 });

describe.each([
  ['PostgreSQL', async () => [await pgPubSub(), await pgPubSub()] as const],
  ['in-process', async () => [local(), local()] as const],
])('pub/sub (%s)', (name, pair) => {
  it('delivers to every subscriber of the channel, the sender included; other channels hear nothing', async () => {
    const [a, b] = await pair();
    const hubs = name === 'PostgreSQL' ? [a, b] : [a];
    const got: string[][] = hubs.map(() => []);
    const other: string[] = [];
    for (const [i, h] of hubs.entries()) h.subscribe('job_hints', (p) => got[i]!.push(p));
    a.subscribe('other_channel', (p) => other.push(p));
    // LISTEN is issued on subscribe; a round trip on the same connection makes sure it is in place.
    await a.publish('warmup', '');
    await b.publish('warmup', '');
    await a.publish('job_hints', 'actor_video:abc');
    await until(() => expect(got.every((g) => g.includes('actor_video:abc'))).toBe(true));
    expect(other).toEqual([]);
  });

  it('unsubscribe stops delivery and is idempotent; other subscribers keep theirs', async () => {
    const [a] = await pair();
    const first: string[] = [];
    const second: string[] = [];
    const off = a.subscribe('job_hints', (p) => first.push(p));
    a.subscribe('job_hints', (p) => second.push(p));
    off();
    off();
    await a.publish('job_hints', 'x');
    await until(() => expect(second).toEqual(['x']));
    expect(first).toEqual([]);
  });

  it('refuses channel names that are not plain identifiers and payloads over the NOTIFY limit', async () => {
    const [a] = await pair();
    for (const bad of ['', 'Upper', 'has-dash', 'x;DROP TABLE genplat_jobs', 'a'.repeat(41)]) {
      await expect(a.publish(bad, 'x'), bad).rejects.toThrow(/channel/);
      expect(() => a.subscribe(bad, () => {}), bad).toThrow(/channel/);
    }
    await expect(a.publish('job_hints', 'é'.repeat(MAX_PAYLOAD_BYTES / 2 + 1))).rejects.toThrow(/bytes/);
    // PostgreSQL refuses NUL in a NOTIFY payload; the in-process backend refuses it too, so both behave alike.
    await expect(a.publish('job_hints', 'actor_video\u0000abc')).rejects.toThrow(/NUL/);
  });

  it('a throwing subscriber does not stop the others', async () => {
    const [a] = await pair();
    const got: string[] = [];
    a.subscribe('job_hints', () => {
      throw new Error('boom');
    });
    a.subscribe('job_hints', (p) => got.push(p));
    await a.publish('job_hints', 'still');
    await until(() => expect(got).toEqual(['still']));
  });
});

describe('pub/sub on PostgreSQL after its connection is lost', () => {
  it('reconnects and listens again on every channel', async () => {
    const a = await pgPubSub();
    const b = await pgPubSub();
    const got: string[] = [];
    a.subscribe('job_hints', (p) => got.push(p));
    await a.publish('warmup', '');
    // Cut every connection to the database (only these two pub/subs use it): as a restart or a failover would.
    const c = new pg.Client({ connectionString: await url! });
    await c.connect();
    const { rows } = await c.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    await c.end();
    expect(rows.length).toBeGreaterThanOrEqual(2);
    // Messages sent while a is away are lost (hints only); after its reconnect, they arrive again.
    await until(async () => {
      await b.publish('job_hints', 'after').catch(() => {});
      expect(got).toContain('after');
    });
  });
});

describe('ServerEventBus over the pub/sub', () => {
  it('carries resource updates and list changes between two instances, and ignores malformed messages', async () => {
    const [pa, pb] = [await pgPubSub(), await pgPubSub()];
    const busA = pubSubEventBus(pa, log);
    const busB = pubSubEventBus(pb, log);
    const heard: ServerEvent[] = [];
    busB.subscribe((e) => heard.push(e));
    await pa.publish('warmup', '');
    await pb.publish('warmup', '');
    // Garbage on the channel (anything able to NOTIFY could send it) is dropped, not delivered.
    for (const junk of ['not json', '{"kind":"shell"}', '{"kind":"resource_updated"}', 'null']) {
      await pa.publish(SERVER_EVENTS_CHANNEL, junk);
    }
    busA.publish({ kind: 'resource_updated', uri: 'genplat://jobs/actor_video:abc' });
    busA.publish({ kind: 'tools_list_changed' });
    await until(() => expect(heard).toHaveLength(2));
    expect(heard).toEqual([
      { kind: 'resource_updated', uri: 'genplat://jobs/actor_video:abc' },
      { kind: 'tools_list_changed' },
    ]);
    busA.close();
    busB.close();
  });
});

describe('webhook job hints over the pub/sub (src/webhooks/hints.ts)', () => {
  it('carry a real job key (it holds NUL) from one PostgreSQL instance to another, and drop junk', async () => {
    const [pa, pb] = [await pgPubSub(), await pgPubSub()];
    const key = jobKey({ kind: 'actor_video', id: 'vid_123' });
    expect(key).toContain('\u0000');
    const heard: string[] = [];
    pubSubHints(pb, log).subscribe((k) => heard.push(k));
    await pa.publish('warmup', '');
    await pb.publish('warmup', '');
    for (const junk of ['not json', '42', '""', 'null']) await pa.publish(JOB_HINT_CHANNEL, junk);
    pubSubHints(pa, log).publish(key);
    await until(() => expect(heard).toHaveLength(1));
    expect(heard).toEqual([key]);
  });
});
