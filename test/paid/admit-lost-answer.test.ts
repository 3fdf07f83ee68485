/**
 * Issue 19 review (L2): the store commits the intent but its answer is lost (a connection cut at COMMIT). The
 * call fails saying nothing was sent — true — and the intent it left must not block the same call for ever as a
 * duplicate of itself: it is released as `rejected` (nothing was sent), and the retry is admitted and sent once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { type Harness, startHarness, structured } from '../helpers/harness.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
let h: Harness | undefined;
afterAll(() => h?.close());

describe('an admission whose answer is lost', () => {
  it('is released, and the same call then goes through exactly once', async () => {
    let loseNextAnswer = true;
    h = await startHarness({
      store: async (stateDir) => {
        const real = await openSqliteStore(stateDir);
        // A real store whose first admission (admitBundle) commits and then reports a lost connection.
        return new Proxy(real, {
          get(target, key) {
            const v = (target as unknown as Record<string | symbol, unknown>)[key];
            if (key !== 'admitBundle' || typeof v !== 'function') return typeof v === 'function' ? v.bind(target) : v;
            return async (...args: unknown[]) => {
              const r = await (v as (...a: unknown[]) => unknown).apply(target, args);
              if (loseNextAnswer) {
                loseNextAnswer = false;
                throw new Error('Connection terminated unexpectedly (after COMMIT)');
              }
              return r;
            };
          },
        }) as Store;
      },
    });
    const args = { avatar_id: 'av_ava', voice_script: 'Admitted, answer lost.' };
    const first = await h.call('create_talking_video', args);
    expect(first.isError).toBe(true);
    expect(h.sim.log.count(POSTS)).toBe(0);
    expect((await h.jobs.list({})).map((r) => r.outcome)).toEqual(['rejected']);

    const again = structured(await h.call('create_talking_video', args));
    expect(again.status).toMatch(/submitted|completed/);
    expect(h.sim.log.count(POSTS)).toBe(1);
  });
});
