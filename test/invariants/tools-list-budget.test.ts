/**
 * The tools/list budget (issue 6 target): with every toolset on, the model-facing part of tools/list
 * (name, title, description, inputSchema) stays within 4,000 o200k_base tokens (issue 13). Deterministic (a size,
 * not a timing), so it is asserted here; `npm run bench` prints the full figures.
 */
import { describe, expect, it } from 'vitest';
import { listTools, measureTools, modelVisibleTools, TOOLS_LIST_BUDGET_TOKENS } from '../../scripts/measure-tools.js';
import { LISTED_WITHOUT_POLICY } from '../helpers/listed-tools.js';

const BUDGET_TOKENS = TOOLS_LIST_BUDGET_TOKENS;

describe('tools/list size', () => {
  // Each transport lists the tools that work there (src/tool-visibility.ts): both lists stay within the budget.
  for (const transport of ['stdio', 'http'] as const) {
    it(`all toolsets over ${transport}: model-facing tools/list ≤ ${BUDGET_TOKENS} o200k tokens`, async () => {
      // App-only tools are hidden from the model by hosts: not model-facing.
      const tools = modelVisibleTools(await listTools({ GENPLAT_TOOLSETS: 'all' }, {}, {}, transport));
      // Every tool of the transport but decide_approval, listed only with an approval policy (an operator's choice).
      const expected = LISTED_WITHOUT_POLICY.filter((t) => t.only === undefined || t.only === transport);
      expect(tools.map((t) => t.name).sort()).toEqual(expected.map((t) => t.name).sort());
      const m = measureTools(`all toolsets, ${transport}`, tools);
      expect(m.modelFacing.tokens, JSON.stringify(m.largest)).toBeLessThanOrEqual(BUDGET_TOKENS);
    });
  }
});
