/** The events outbox on SQLite (outbox-suite.ts), and two processes' stores on one state dir. */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, parseCli } from '../../src/config.js';
import { runEventsLog } from '../../src/events/cli.js';
import { startEventWorker } from '../../src/events/worker.js';
import { silentLogger } from '../../src/log.js';
import { newRecord, type TestDir, testDir } from '../helpers/store-helpers.js';
import { outboxSuite, rules, writeEveryEvent } from './outbox-suite.js';
import { startReceiver } from './receiver.js';

const dirs: TestDir[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await d.cleanup();
});

outboxSuite('SQLite', async () => {
  const d = await testDir();
  dirs.push(d);
  return d.open();
});

describe('SQLite: one event per transition across stores', () => {
  it('two stores on one state dir observing the same completion write one job.completed', async () => {
    const d = await testDir();
    dirs.push(d);
    const a = await d.open();
    const b = await d.open();
    const r = await a.admit(newRecord({ owner: 'token:x' }), rules('token:x'), () => undefined);
    if (!r.admitted) throw new Error('not admitted');
    await a.settle(r.record.id, { outcome: 'submitted', handle: 'actor_video:p:v', status: 'processing' });
    await Promise.all([a, b, a, b].map((s) => s.observe(r.record.id, { status: 'completed' })));
    const completed = (await b.events()).filter((e) => e.type === 'job.completed');
    expect(completed).toHaveLength(1);
  });
});

describe('genplat-mcp events log', () => {
  it('prints the per-endpoint summary and every attempt, never the secret; a missing store is named, exit 2', async () => {
    const d = await testDir();
    dirs.push(d);
    const s = await d.open();
    await writeEveryEvent(s);
    const receiver = await startReceiver();
    receiver.mode = '503';
    const worker = startEventWorker({
      store: s,
      endpoints: [{ url: receiver.url, secret: receiver.secret }],
      log: silentLogger,
      retryForMs: 3_600_000,
      tickMs: 60_000,
    });
    await worker.round();
    await worker.close();
    await receiver.close();
    const config = loadConfig(parseCli(['events', 'log']), { GENPLAT_STATE_DIR: d.dir });
    let out = '';
    expect(await runEventsLog(config, silentLogger, (c) => (out += c))).toBe(0);
    // The origin only: a hook URL's path or query may be its own credential (shownEndpoint).
    expect(out).toContain(`events → ${new URL(receiver.url).origin}/…: 0 delivered`);
    expect(out).not.toContain(receiver.url);
    expect(out).toMatch(/\tjob\.submitted\t.*\t503\t/);
    expect(out).not.toContain(receiver.secret.slice(6));
    const missing = loadConfig(parseCli(['events', 'log']), { GENPLAT_STATE_DIR: join(d.dir, 'nope') });
    const errs: string[] = [];
    expect(
      await runEventsLog(
        missing,
        silentLogger,
        () => {},
        (l) => errs.push(l),
      ),
    ).toBe(2);
    expect(errs.join('\n')).toContain('No job store at');
  });
});
