import { describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config.js';
import { estimate } from '../../../src/jobs/envelope.js';
import type { JobStore } from '../../../src/jobs/store.js';
import { checkCeilings, guardCall, utcDayStart } from '../../../src/paid/guard.js';
import type { AdmitRules } from '../../../src/store/types.js';

const config = { maxCreditsPerCall: 500, maxCreditsPerDay: 1000, confirm: { mode: 'never' } } as Config;

function store(spent: number, seen: { since?: Date; owner?: string | undefined } = {}): JobStore {
  return {
    readAdmissionFacts: async (rules: AdmitRules) => {
      seen.since = rules.dayStart;
      seen.owner = rules.user?.owner;
      return { now: new Date(NOW), spentToday: spent, spentByOwner: spent };
    },
  } as unknown as JobStore;
}

const NOW = Date.UTC(2026, 10, 22, 17, 30);

describe('ceilings', () => {
  it('per call: equal is allowed, above is refused naming the variable', async () => {
    const deps = { config, jobs: store(0), now: () => NOW };
    expect(await checkCeilings(deps, estimate(500, 'x'))).toBeUndefined();
    const err = await checkCeilings(deps, estimate(501, 'x'));
    expect(err?.refusal).toBe('per_call');
    expect(err?.message).toMatch(/501 credits.*500 credits.*GENPLAT_MAX_CREDITS_PER_CALL/);
  });

  it('per day: the whole account spend since the UTC day start (every HTTP caller), plus the estimate', async () => {
    const seen: { since?: Date; owner?: string | undefined } = {};
    const deps = { config, jobs: store(900, seen), now: () => NOW };
    expect(await checkCeilings(deps, estimate(100, 'x'))).toBeUndefined();
    // No owner filter: N callers must not get N times the ceiling on one platform account.
    expect(seen).toEqual({ since: new Date(Date.UTC(2026, 10, 22)), owner: undefined });
    const err = await checkCeilings(deps, estimate(101, 'x'));
    expect(err?.refusal).toBe('per_day');
    expect(err?.message).toMatch(/900 credits already.*GENPLAT_MAX_CREDITS_PER_DAY/);
  });

  it('utcDayStart', () => {
    expect(utcDayStart(Date.UTC(2026, 0, 1, 0, 0, 0)).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(utcDayStart(Date.UTC(2026, 0, 1, 23, 59, 59, 999)).toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('refuse comes before any consent path, whatever the policy', async () => {
    const elicit = async () => ({ outcome: 'accepted' as const });
    const d = await guardCall(
      { config, jobs: store(1000), now: () => NOW },
      {
        tool: 't',
        kind: 'actor_video',
        request: { route: '/t', body: {} },
        estimate: estimate(1, 'x'),
        summary: 's',
        owner: undefined,
        token: undefined,
        allowDuplicate: true,
        elicit,
      },
    );
    expect(d.kind).toBe('refuse');
  });
});
