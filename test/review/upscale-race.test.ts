/**
 * Review: POST /upscale/generate is not idempotent ("do not submit again while an attempt is active").
 * upscale_video refuses while an attempt for the same video is in the ledger, but that check runs in
 * validate(), before the slow quote and consent, and long before the intent is written. Two calls for the
 * same video with different arguments (so the duplicate guard's fingerprint differs) can both get through.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { BillableToolSpec, ToolSpec } from '../../src/define-tool.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { ALL_TOOLS } from '../../tools/index.js';
import { billableExample } from '../helpers/examples.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

const POSTS = { method: 'POST', path: '/upscale/generate' } as const;

let h: Harness | undefined;
let sim: Simulator | undefined;
afterEach(async () => {
  await h?.close();
  await sim?.close();
  h = undefined;
  sim = undefined;
});

/** Attempts that run for seconds, as real ones do (minutes), so the first is still active. */
const slowSim = () => startSimulator({ timing: { jobMs: 5_000, slowOpMs: 10 } });

describe('upscale_video: one active attempt per video', () => {
  it('sequential: a second attempt for the same video while the first runs is refused (closed)', async () => {
    sim = await slowSim();
    h = await startHarness({ sim });
    const args = billableExample('upscale_video').args(h.sim);
    const first = await h.call('upscale_video', args);
    expect(structured(first).status).toBe('submitted');
    const second = await h.call('upscale_video', { ...args, target_resolution: '1440p' });
    expect(second.isError).toBe(true);
    expect(text(second)).toMatch(/still active/);
    expect(h.sim.log.count(POSTS)).toBe(1);
  });

  // Closed: upscale_video's `billable.exclusive` key is checked by store.admit in the intent's transaction.
  it('parallel: two attempts for the same video with different resolutions send one POST', async () => {
    sim = await slowSim();
    h = await startHarness({ sim });
    const args = billableExample('upscale_video').args(h.sim);
    const results = await Promise.all([
      h.call('upscale_video', args),
      h.call('upscale_video', { ...args, target_resolution: '1440p' }),
    ]);
    expect(h.sim.log.count(POSTS)).toBe(1);
    expect(results.filter((r) => r.isError)).toHaveLength(1);
  });
});

describe('the store rule that closes it (exclusive key, inside store.admit)', () => {
  it('without the early checks (validate, beforeAdmit), parallel attempts for one video still send one POST', async () => {
    const spec = ALL_TOOLS.find((t) => t.name === 'upscale_video') as BillableToolSpec<z.ZodRawShape>;
    const { beforeAdmit: _early, ...billable } = spec.billable;
    const patched: ToolSpec = { ...spec, validate: undefined, billable } as ToolSpec;
    sim = await slowSim();
    h = await startHarness({ sim, tools: [patched] });
    const args = billableExample('upscale_video').args(h.sim);
    const results = await Promise.all([
      h.call('upscale_video', args),
      h.call('upscale_video', { ...args, target_resolution: '1440p' }),
    ]);
    expect(h.sim.log.count(POSTS)).toBe(1);
    const refused = results.filter((r) => r.isError);
    expect(refused).toHaveLength(1);
    expect(text(refused[0]!)).toMatch(/still active/);
    // Refused inside admit: nothing for it in the store.
    expect(await h.jobs.list({})).toHaveLength(1);
  });
});
