/**
 * `allow_duplicate` past an unknown/pending identical submission (issue 9, item 6), at the guard: never a
 * policy approval, and the last check before the intent refuses one that appeared after consent.
 */
import { describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config.js';
import { estimate } from '../../../src/jobs/envelope.js';
import type { JobRecord, JobStore } from '../../../src/jobs/store.js';
import { fingerprint } from '../../../src/paid/fingerprint.js';
import { admitRules, type GuardRequest, guardCall, refusalError } from '../../../src/paid/guard.js';
import type { AdmitRules } from '../../../src/store/types.js';

const TOOL = 'create_talking_video';
const REQUEST = { route: '/video/generate', body: { avatar_id: 'a1', voice_script: 'hi' } };
const FP = fingerprint(TOOL, REQUEST);
const NOW = Date.UTC(2026, 10, 22, 12);

function record(outcome: JobRecord['outcome'], over: Partial<JobRecord> = {}): JobRecord {
  return {
    id: `rec-${outcome}`,
    handle: `submission:rec-${outcome}`,
    tool: TOOL,
    kind: 'actor_video',
    fingerprint: FP,
    summary: 's',
    estimate: estimate(100, 'x'),
    consent: 'policy',
    outcome,
    status: outcome === 'unknown' ? 'unknown' : 'submitted',
    requestId: outcome === 'unknown' ? 'req-earlier-1' : undefined,
    remote: undefined,
    outputs: [],
    reason: undefined,
    creditsCharged: undefined,
    creditsRefunded: undefined,
    originalUrl: undefined,
    owner: undefined,
    createdAt: new Date(NOW - 60_000).toISOString(),
    updatedAt: new Date(NOW - 60_000).toISOString(),
    ...over,
  } as JobRecord;
}

function store(records: JobRecord[]): JobStore {
  return {
    // The unsettled fact as the stores read it (FACT_SQL.unsettled): pending or unknown, same fingerprint.
    readAdmissionFacts: async (rules: AdmitRules) => ({
      now: new Date(NOW),
      spentToday: 0,
      unsettled: rules.unsettled
        ? records.find(
            (r) =>
              r.fingerprint === rules.unsettled?.fingerprint && (r.outcome === 'pending' || r.outcome === 'unknown'),
          )
        : undefined,
    }),
    consentKey: async () => Buffer.alloc(32, 7),
  } as unknown as JobStore;
}

const config = (confirm: Config['confirm']) =>
  ({ maxCreditsPerCall: 2000, maxCreditsPerDay: 10000, confirm }) as Config;

const request = (over: Partial<GuardRequest> = {}): GuardRequest => ({
  tool: TOOL,
  kind: 'actor_video',
  request: REQUEST,
  estimate: estimate(100, 'fixed price'),
  summary: 'talking video',
  owner: undefined,
  token: undefined,
  allowDuplicate: true,
  elicit: undefined,
  ...over,
});

describe('guardCall with allow_duplicate', () => {
  it.each([
    ['never', { mode: 'never' }],
    ['above:500', { mode: 'above', credits: 500 }],
  ] as const)('GENPLAT_CONFIRM=%s does not approve a resend past a pending or unknown record', async (_n, confirm) => {
    for (const outcome of ['unknown', 'pending'] as const) {
      const d = await guardCall({ config: config(confirm), jobs: store([record(outcome)]), now: () => NOW }, request());
      expect(d.kind, outcome).toBe('answer');
      if (d.kind !== 'answer') continue;
      expect(d.envelope.status).toBe('confirmation_required');
      expect(d.envelope.next_step).toMatch(/may already exist on the platform and be charged/);
      expect(d.envelope.next_step).toContain(`submission:rec-${outcome}`);
      if (outcome === 'unknown') expect(d.envelope.next_step).toContain('request id req-earlier-1');
      else expect(d.envelope.next_step).toMatch(/no request id/);
    }
  });

  it('a settled earlier record (rejected, completed) leaves the policy in charge', async () => {
    const settled = [record('rejected', { status: 'failed' }), record('submitted', { status: 'completed' })];
    const d = await guardCall({ config: config({ mode: 'never' }), jobs: store(settled), now: () => NOW }, request());
    expect(d).toMatchObject({ kind: 'allow', consent: 'policy' });
  });
});

describe('the admit rules with allow_duplicate (the store applies them in its transaction)', () => {
  it('ask the store to refuse an unsettled identical record other than the one consented past', () => {
    const deps = { config: config({ mode: 'never' }), now: () => NOW };
    const allow = { kind: 'allow' as const, consent: 'token' as const, fingerprint: FP, duplicateOf: 'rec-unknown' };
    const rules = admitRules(deps, { owner: undefined, allowDuplicate: true }, allow);
    expect(rules.duplicate).toBeUndefined();
    expect(rules.unsettled).toEqual({ fingerprint: FP, owner: undefined, except: 'rec-unknown' });
    const plain = admitRules(deps, { owner: 'o', allowDuplicate: false }, {
      ...allow,
      duplicateOf: undefined,
    } as never);
    expect(plain.duplicate).toEqual({ fingerprint: FP, owner: 'o' });
    expect(plain.unsettled).toBeUndefined();
  });

  it('turn the store refusal into a warning naming the earlier request, nothing sent', () => {
    const late = refusalError(TOOL, { reason: 'unsettled', record: record('unknown') }) as {
      refusal?: string;
      message: string;
    };
    expect(late.refusal).toBe('duplicate');
    expect(late.message).toContain('request id req-earlier-1');
    expect(late.message).toMatch(/Nothing was sent/);
  });
});
