/**
 * The examples the invariant suites build on are themselves valid: every billable tool's example submits
 * exactly one POST to its declared route and reaches a terminal status; every read example answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../tools/index.js';
import { billableExample, billableTools, exampleFor } from '../helpers/examples.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { maxCreditsPerCall: 1_000_000, maxCreditsPerDay: 10_000_000 } });
});
afterAll(() => h.close());

describe('examples', () => {
  it('cover every tool in the registry', () => {
    for (const t of ALL_TOOLS) expect(() => exampleFor(t.name), t.name).not.toThrow();
  });

  it.each(billableTools().map((t) => t.name))('%s: the example submits one POST to its route', async (tool) => {
    const ex = billableExample(tool);
    h.sim.log.clear();
    const r = await h.call(tool, ex.args(h.sim, 1));
    const s = structured(r);
    expect(r.isError, text(r)).toBeFalsy();
    expect(['submitted', 'completed']).toContain(s.status);
    const posts = h.sim.log.entries().filter((e) => e.method === 'POST');
    expect(posts.filter((e) => e.path === ex.route(h.sim))).toHaveLength(1);
    if (ex.pollable) {
      const w = structured(await h.call('wait_for_jobs', { handles: [s.handle], max_wait_s: 20 }));
      expect(JSON.stringify(w)).toContain('completed');
    }
  });
});
