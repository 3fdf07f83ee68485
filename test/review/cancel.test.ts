/**
 * Review: the client cancels a billable call while its POST is on the wire. The platform may accept the job;
 * the only way to learn its id is to read the answer, so cancelling must never abort the POST itself
 * (invariant 3: a handle is never lost). Every billable tool, through the runtime.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { billableExample, billableTools } from '../helpers/examples.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe.each(billableTools().map((t) => t.name))('%s: cancelled while its POST is in flight', (tool) => {
  it('the POST completes and the ledger keeps the platform handle (not "unknown")', async () => {
    h = await startHarness();
    const ex = billableExample(tool);
    const route = ex.route(h.sim);
    // The sim accepts (and charges) the job, then holds the answer for 400 ms.
    h.sim.faults.add({ method: 'POST', path: route, kind: 'delay', delayMs: 400 });

    const ac = new AbortController();
    const call = h.call(tool, ex.args(h.sim), { signal: ac.signal });
    // Abort once the intent is on record (the POST goes out right after it).
    // vi.waitFor's default bound is 1 s: under load the intent took longer to land (seen failing on a 2-core box).
    await vi.waitFor(async () => expect((await h!.jobs.list({})).length).toBe(1), { interval: 5, timeout: 20_000 });
    await new Promise((r) => setTimeout(r, 100));
    ac.abort('user pressed stop');
    await expect(call).rejects.toBeDefined();

    await vi.waitFor(() => expect(h!.sim.log.count({ method: 'POST', path: route })).toBe(1), { timeout: 5_000 });
    await vi.waitFor(
      async () => {
        const [rec] = await h!.jobs.list({});
        expect(rec?.outcome).toBe('submitted');
        expect(rec?.handle).not.toMatch(/^submission:/);
      },
      { timeout: 5_000, interval: 20 },
    );
  });
});
