/**
 * confirm_paid_call (src/apps/confirm-tool.ts) calls runBillable directly: it skips the checkArgumentDepth()
 * that registerTools' handler runs first for every other tool. The same 10,000-level run_model params that
 * run_model itself refuses "naming the path" (test/review/state-errors.test.ts) are walked recursively here.
 */
import { afterEach, expect, it } from 'vitest';
import { billableExample } from '../helpers/examples.js';
import { APPS_HOST, type Harness, startHarness, structured, text } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function nest(n: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
}

it('confirm_paid_call refuses deeply nested arguments like the tool itself (named path, no crash)', async () => {
  h = await startHarness({ era: 'legacy', clientCapabilities: APPS_HOST });
  const args = billableExample('run_model').args(h.sim, 1) as { params: Record<string, unknown> };
  const r = await h.call('confirm_paid_call', {
    tool: 'run_model',
    arguments: { ...args, params: { ...args.params, extra: nest(10_000) } },
    confirmation_token: 'x.y',
  });
  expect(r.isError).toBe(true);
  expect(text(r)).toMatch(/nested deeper than \d+ levels/);
  const ok = await h.call('create_talking_video', billableExample('create_talking_video').args(h.sim, 3));
  expect(['confirmation_required', 'submitted']).toContain(structured(ok).status);
});
