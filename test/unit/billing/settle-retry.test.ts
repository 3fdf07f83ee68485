/**
 * After an accepted POST the settle is retried when the store is briefly unavailable: a record left `pending`
 * has no platform id to follow and its spend stays at the quote (hostile review, issue 10). The POST is never
 * part of the retry: these functions get its answer, not the request.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SubmissionUnknownError } from '../../../src/errors.js';
import { estimate } from '../../../src/jobs/envelope.js';
import { createLogger } from '../../../src/log.js';
import { evaluateAdmission } from '../../../src/paid/admission.js';
import { settleFailure, settleSubmission } from '../../../src/paid/settle.js';
import { openSqliteStore } from '../../../src/store/sqlite.js';
import type { Store } from '../../../src/store/types.js';

const DAY = new Date('2026-03-10T00:00:00.000Z');
const RULES = { maxCreditsPerCall: 1000, maxCreditsPerDay: 10_000, dayStart: DAY };
let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The real store, whose `settle` throws `failures` times first (as a busy or disconnected store does). */
async function flakyStore(failures: number): Promise<{ store: Store; calls: () => number }> {
  dir = await mkdtemp(join(tmpdir(), 'genplat-settle-'));
  const real = await openSqliteStore(dir, { now: () => new Date('2026-03-10T12:00:00.000Z') });
  let calls = 0;
  const store = Object.create(real) as Store;
  store.settle = async (id, result) => {
    calls++;
    if (calls <= failures) throw new Error('database is locked');
    return real.settle(id, result);
  };
  return { store, calls: () => calls };
}

async function intent(store: Store) {
  const est = estimate(100, 'fixed price');
  const res = await store.admit(
    {
      tool: 'create_talking_video',
      kind: 'actor_video',
      fingerprint: 'fp',
      summary: 's',
      estimate: est,
      consent: 'policy',
      owner: undefined,
    },
    RULES,
    evaluateAdmission,
  );
  if (!res.admitted) throw new Error(res.reason);
  return { rec: res.record, est };
}

const deps = (store: Store) => ({ jobs: store, log: createLogger('error', () => {}), settleRetryDelaysMs: [0, 0, 0] });

describe('settle after the POST', () => {
  it('retries a failing store until the accepted job is recorded with its platform id', async () => {
    const { store, calls } = await flakyStore(2);
    const { rec, est } = await intent(store);
    const out = await settleSubmission(
      rec,
      { ref: { kind: 'actor_video', id: 'vid-1' }, requestId: 'req-1', remote: { id: 'vid-1' } },
      est,
      deps(store),
    );
    expect(out).toMatchObject({ envelope: { status: 'submitted', handle: 'actor_video:vid-1' } });
    expect(calls()).toBe(3);
    expect(await store.get(rec.id)).toMatchObject({
      outcome: 'submitted',
      handle: 'actor_video:vid-1',
      requestId: 'req-1',
    });
    await store.close();
  });

  it('records an unknown outcome through a failing store too', async () => {
    const { store } = await flakyStore(1);
    const { rec, est } = await intent(store);
    const out = await settleFailure(
      rec,
      new SubmissionUnknownError(undefined, 'req-2'),
      'actor_video',
      est,
      deps(store),
    );
    expect(out).toMatchObject({ envelope: { status: 'unknown' } });
    expect(await store.get(rec.id)).toMatchObject({ outcome: 'unknown', requestId: 'req-2' });
    await store.close();
  });

  it('gives up after its attempts without hiding the handle from the agent', async () => {
    const { store, calls } = await flakyStore(10);
    const { rec, est } = await intent(store);
    const out = await settleSubmission(
      rec,
      { ref: { kind: 'actor_video', id: 'vid-3' }, requestId: 'r', remote: {} },
      est,
      deps(store),
    );
    expect(out).toMatchObject({ envelope: { handle: 'actor_video:vid-3' } });
    expect(calls()).toBe(4);
    await store.close();
  });
});
