/**
 * A team's week budget on the real paid path (issue 30): a caller whose teams come from verified identity
 * (the harness's `person`, as src/transports/http-main.ts builds it) calls a paid tool through a real MCP client;
 * the call that would cross the team's week is refused before consent with the budget named, nothing is POSTed,
 * `genplat://spend` shows each budget with what is left, and the threshold log lines appear once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBudgets } from '../../src/paid/budgets-file.js';
import { type Harness, startHarness, structured } from '../helpers/harness.js';

let h: Harness;
const NOW = Date.parse('2026-11-25T12:00:00.000Z'); // a Wednesday: the week began Monday the 23rd
beforeAll(async () => {
  const problems: string[] = [];
  const budgets = parseBudgets({ teams: { ops: { week: 300 } }, person: { month: 5000 } }, problems);
  if (problems.length) throw new Error(problems.join('\n'));
  h = await startHarness({
    owner: 'token:alice',
    person: { owner: 'token:alice', name: 'Alice', groups: ['ops'] },
    now: () => NOW,
    config: { maxCreditsPerDay: 100_000, maxCreditsPerCall: 1000, budgets },
  });
});
afterAll(() => h?.close());

async function spend() {
  const r = await h.client.readResource({ uri: 'genplat://spend' });
  return JSON.parse((r.contents[0] as { text: string }).text) as { budgets: Record<string, unknown>[] };
}

describe("a team's week budget on a real paid call", () => {
  it('admits up to the limit, refuses past it naming the team, and genplat://spend shows what is left', async () => {
    const video = (i: number) => h.call('create_talking_video', { avatar_id: 'av_ava', voice_script: `Hi ${i}.` });
    for (let i = 0; i < 3; i++) expect(structured(await video(i)).status).toBe('submitted');
    const posts = h.sim.log.count({ method: 'POST', path: '/video/generate' });
    const refused = await video(3);
    expect(refused.isError).toBe(true);
    const text = (refused.content[0] as { text: string }).text;
    expect(text).toContain(
      "Refused: team ops's weekly budget is 300 credits (GENPLAT_BUDGETS); 300 spent or held this week (since 2026-11-23 00:00 UTC), 0 left; this call is quoted at 100.",
    );
    expect(h.sim.log.count({ method: 'POST', path: '/video/generate' })).toBe(posts);
    const lines = (await spend()).budgets;
    expect(lines).toContainEqual({
      budget: 'team ops',
      period: 'week',
      since: '2026-11-23T00:00:00.000Z',
      limit: 300,
      spent: 300,
      left: 0,
    });
    expect(lines).toContainEqual(
      expect.objectContaining({ budget: 'person token:alice', period: 'month', limit: 5000, spent: 300, left: 4700 }),
    );
    const alerts = h.logs.filter((l) => l.includes('budget threshold:'));
    expect(alerts).toHaveLength(2);
    expect(alerts[0]).toContain('team ops reached 80 % of its week budget');
    expect(alerts[1]).toContain('team ops reached 100 % of its week budget');
  });
});
