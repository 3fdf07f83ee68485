import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utcDayStart } from '../../src/paid/guard.js';
import { type Harness, startHarness, structured } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { maxCreditsPerDay: 3000, maxCreditsPerCall: 1000 } });
});
afterAll(() => h.close());

async function spend() {
  const r = await h.client.readResource({ uri: 'genplat://spend' });
  return JSON.parse((r.contents[0] as { text: string }).text);
}

describe('genplat://spend', () => {
  it("reports today's spend against the ceilings and follows new jobs", async () => {
    expect(await spend()).toEqual({
      today_credits: 0,
      max_credits_per_day: 3000,
      remaining_today: 3000,
      max_credits_per_call: 1000,
      confirmation: 'paid jobs start without confirmation (within the ceilings)',
      quoted_today_credits: 0,
      charged_today_credits: 0,
      above_quote_today_credits: 0,
      jobs_above_quote_today: 0,
      // stdio: one user; the account's day is the only budget.
      budgets: [
        {
          budget: 'account',
          period: 'day',
          since: utcDayStart(Date.now()).toISOString(),
          limit: 3000,
          spent: 0,
          left: 3000,
        },
      ],
    });
    expect(structured(await h.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Hi.' })).status).toBe(
      'submitted',
    );
    expect(await spend()).toMatchObject({ today_credits: 100, remaining_today: 2900, quoted_today_credits: 100 });
  });
});
