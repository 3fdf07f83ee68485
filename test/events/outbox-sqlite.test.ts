/** The events outbox on SQLite (outbox-suite.ts), and two processes' stores on one state dir. */
import { afterEach, describe, expect, it } from 'vitest';
import { newRecord, type TestDir, testDir } from '../helpers/store-helpers.js';
import { outboxSuite, rules } from './outbox-suite.js';

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
