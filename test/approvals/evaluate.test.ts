/**
 * approvalNeeded (issue 28 item 4): each condition at its boundary, every matching rule demanded, groups expanded
 * through the people directory, and the requester never an approver whatever the file says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ApprovalRequest, approvalNeeded, type PeopleDirectory } from '../../src/approvals/evaluate.js';
import { parseApprovalPolicy } from '../../src/approvals/load-policy.js';
import { policyPeopleProblems } from '../../src/approvals/people-check.js';
import { type ApprovalPolicy, PAID_TOOLS, type PolicyFile, toPolicy } from '../../src/approvals/policy-schema.js';

const policy = (rules: unknown[], extra: object = {}): Promise<ApprovalPolicy> =>
  parseApprovalPolicy(JSON.stringify({ rules, ...extra }), 'json', 'test');

const LEAD = 'slack:T1:U_LEAD';
const DEV = 'slack:T1:U_DEV';
const base: ApprovalRequest = {
  requester: DEV,
  tool: 'create_talking_video',
  credits: 10,
  daySpendAfter: 10,
  requesterGroups: [],
};
const people: PeopleDirectory = {
  [LEAD]: { groups: ['leads'] },
  [DEV]: { groups: ['devs', 'finance'] },
  'slack:T1:U_CFO': { groups: ['finance'] },
  'slack:T1:U_ACC': { groups: ['finance'] },
};
const needs = (p: ApprovalPolicy, r: Partial<ApprovalRequest>, dir: PeopleDirectory = people) =>
  approvalNeeded(p, { ...base, ...r }, dir);

describe('each condition', () => {
  it('credits_at_least N: N-1 passes, N and above need approval; an unbounded quote needs it too', async () => {
    const p = await policy([{ when: { credits_at_least: 300 }, approvers: [LEAD] }]);
    expect(needs(p, { credits: 299 })).toBeUndefined();
    expect(needs(p, { credits: 300 })?.kind).toBe('approval');
    expect(needs(p, { credits: 5000 })?.kind).toBe('approval');
    expect(needs(p, { credits: null })?.kind).toBe('approval');
  });

  it('unbounded: only a call without a proven bound', async () => {
    const p = await policy([{ when: { unbounded: true }, approvers: [LEAD] }]);
    expect(needs(p, { credits: 1_000_000 })).toBeUndefined();
    expect(needs(p, { credits: null })?.kind).toBe('approval');
  });

  it('day_spend_at_least N: the day spend after this call, N-1 passes, N needs approval; unknown needs it', async () => {
    const p = await policy([{ when: { day_spend_at_least: 1000 }, approvers: [LEAD] }]);
    expect(needs(p, { daySpendAfter: 999 })).toBeUndefined();
    expect(needs(p, { daySpendAfter: 1000 })?.kind).toBe('approval');
    expect(needs(p, { daySpendAfter: null })?.kind).toBe('approval');
  });

  it('tools: the tool called, or for a campaign create_campaign or any of its item tools', async () => {
    const p = await policy([{ when: { tools: ['run_model'] }, approvers: [LEAD] }]);
    expect(needs(p, { tool: 'create_talking_video' })).toBeUndefined();
    expect(needs(p, { tool: 'run_model' })?.kind).toBe('approval');
    expect(needs(p, { tool: 'create_campaign', itemTools: ['create_talking_video'] })).toBeUndefined();
    expect(needs(p, { tool: 'create_campaign', itemTools: ['create_talking_video', 'run_model'] })?.kind).toBe(
      'approval',
    );
    const campaigns = await policy([{ when: { tools: ['create_campaign'] }, approvers: [LEAD] }]);
    expect(needs(campaigns, { tool: 'create_campaign', itemTools: ['run_model'] })?.kind).toBe('approval');
    expect(needs(campaigns, { tool: 'run_model' })).toBeUndefined();
  });

  it('groups: the requester is in one of them', async () => {
    const p = await policy([{ when: { groups: ['interns', 'contractors'] }, approvers: [LEAD] }]);
    expect(needs(p, { requesterGroups: ['devs'] })).toBeUndefined();
    expect(needs(p, { requesterGroups: [] })).toBeUndefined();
    expect(needs(p, { requesterGroups: ['devs', 'contractors'] })?.kind).toBe('approval');
  });

  it('conditions of one rule all must hold; an empty `when` matches every paid call', async () => {
    const p = await policy([{ when: { credits_at_least: 300, tools: ['run_model'] }, approvers: [LEAD] }]);
    expect(needs(p, { tool: 'run_model', credits: 299 })).toBeUndefined();
    expect(needs(p, { tool: 'create_talking_video', credits: 300 })).toBeUndefined();
    expect(needs(p, { tool: 'run_model', credits: 300 })?.kind).toBe('approval');
    const every = await policy([{ when: {}, approvers: [LEAD] }]);
    expect(needs(every, { credits: 1 })?.kind).toBe('approval');
  });

  it('no policy file: no call ever needs an approval', () => {
    for (const credits of [0, 300, 1_000_000, null])
      expect(approvalNeeded(undefined, { ...base, credits, daySpendAfter: credits }, people)).toBeUndefined();
  });
});

describe('who approves', () => {
  it('every matching rule is demanded, each with its own approvers; the shortest expiry wins', async () => {
    const p = await policy([
      { name: 'models', when: { tools: ['run_model'] }, approvers: [LEAD], expires_after: '2h' },
      { name: 'big', when: { credits_at_least: 1000 }, approver_groups: ['finance'], approvals_required: 2 },
      { name: 'never', when: { unbounded: true }, approvers: [LEAD] },
    ]);
    expect(needs(p, { tool: 'run_model', credits: 5000 })).toEqual({
      kind: 'approval',
      rules: ['models', 'big'],
      requirements: [
        { rule: 'models', approvers: [LEAD], required: 1 },
        // The requester (DEV) is in finance: left out.
        { rule: 'big', approvers: ['slack:T1:U_CFO', 'slack:T1:U_ACC'], required: 2 },
      ],
      approvers: ['slack:T1:U_ACC', 'slack:T1:U_CFO', LEAD],
      expiresInMs: 2 * 3_600_000,
    });
  });

  it('approver groups expand through the people directory, a Map or an object alike', async () => {
    const p = await policy([{ when: {}, approver_groups: ['leads', 'finance'], approvers: ['slack:T1:U_OTHER'] }]);
    const expected = ['slack:T1:U_ACC', 'slack:T1:U_CFO', LEAD, 'slack:T1:U_OTHER'].sort();
    expect(needs(p, {})).toMatchObject({ kind: 'approval', approvers: expected });
    expect(needs(p, {}, new Map(Object.entries(people)))).toMatchObject({ kind: 'approval', approvers: expected });
  });

  it('the requester is never an approver: listed by id, or through a group', async () => {
    const byId = await policy([{ when: {}, approvers: [DEV, LEAD] }]);
    expect(needs(byId, {})).toMatchObject({ requirements: [{ approvers: [LEAD] }], approvers: [LEAD] });
    const byGroup = await policy([{ when: {}, approver_groups: ['devs', 'leads'] }]);
    expect(needs(byGroup, {})).toMatchObject({ requirements: [{ approvers: [LEAD] }], approvers: [LEAD] });
  });

  it('a rule only the requester could meet makes the call impossible, naming the rule', async () => {
    const alone = await policy([{ name: 'self', when: {}, approvers: [DEV] }]);
    expect(needs(alone, {})).toEqual({ kind: 'impossible', rules: ['self'], rule: 'self', available: [], required: 1 });
    // Two of finance: the requester is one of three members, two remain: possible. Three: impossible.
    const two = await policy([{ name: 'f2', when: {}, approver_groups: ['finance'], approvals_required: 2 }]);
    expect(needs(two, {})?.kind).toBe('approval');
    const three = await policy([{ name: 'f3', when: {}, approver_groups: ['finance'], approvals_required: 3 }]);
    expect(needs(three, {})).toEqual({
      kind: 'impossible',
      rules: ['f3'],
      rule: 'f3',
      available: ['slack:T1:U_CFO', 'slack:T1:U_ACC'],
      required: 3,
    });
    // A group nobody is in (no people file) leaves nobody: impossible, never "no approval needed".
    expect(needs(two, {}, {})?.kind).toBe('impossible');
  });
});

describe('property: the requester is never in an approver set', () => {
  const ids = ['a', 'b', 'c', 'd', 'e'];
  const groups = ['g1', 'g2', 'g3'];
  const arbPeople = fc.dictionary(fc.constantFrom(...ids), fc.record({ groups: fc.subarray(groups) }));
  const arbRule = fc.record(
    {
      when: fc.record(
        {
          credits_at_least: fc.integer({ min: 1, max: 500 }),
          unbounded: fc.constant(true as const),
          day_spend_at_least: fc.integer({ min: 1, max: 500 }),
          tools: fc.subarray([...PAID_TOOLS], { minLength: 1 }),
          groups: fc.subarray(groups, { minLength: 1 }),
        },
        { requiredKeys: [] },
      ),
      approvers: fc.subarray(ids, { minLength: 1 }),
      approver_groups: fc.subarray(groups, { minLength: 1 }),
      approvals_required: fc.integer({ min: 1, max: 4 }),
    },
    { requiredKeys: ['when', 'approver_groups'] },
  );
  const arbRequest = fc.record({
    requester: fc.constantFrom(...ids),
    tool: fc.constantFrom(...PAID_TOOLS),
    credits: fc.option(fc.integer({ min: 0, max: 600 }), { nil: null }),
    daySpendAfter: fc.option(fc.integer({ min: 0, max: 600 }), { nil: null }),
    requesterGroups: fc.subarray(groups),
  });

  it('for random policies, people and requests', () => {
    fc.assert(
      fc.property(fc.array(arbRule, { minLength: 1, maxLength: 5 }), arbPeople, arbRequest, (rules, dir, request) => {
        const p = toPolicy({ rules } as PolicyFile, 'property');
        const need = approvalNeeded(p, request, dir);
        if (need?.kind === 'approval') {
          expect(need.approvers).not.toContain(request.requester);
          for (const r of need.requirements) {
            expect(r.approvers).not.toContain(request.requester);
            expect(r.approvers.length).toBeGreaterThanOrEqual(r.required);
          }
        }
        if (need?.kind === 'impossible') expect(need.available).not.toContain(request.requester);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the policy against the people directory', () => {
  it('a group nobody is in is an error (when.groups would never match); an unknown approver a warning', async () => {
    const p = await policy([
      { name: 'interns', when: { groups: ['intrens'] }, approvers: [LEAD, 'slack:T1:U_GONE'] },
      { when: {}, approver_groups: ['finance', 'fnance'] },
    ]);
    expect(policyPeopleProblems(p, people)).toEqual({
      errors: [
        'rules[0].when.groups: nobody in GENPLAT_PEOPLE is in group "intrens", so it never matches (rule "interns")',
        'rules[1].approver_groups: nobody in GENPLAT_PEOPLE is in group "fnance", so it approves nothing',
      ],
      warnings: ['rules[0].approvers: "slack:T1:U_GONE" is not in GENPLAT_PEOPLE (rule "interns")'],
    });
    const fine = await policy([{ when: { groups: ['devs'] }, approver_groups: ['finance'], approvers: [LEAD] }]);
    expect(policyPeopleProblems(fine, new Map(Object.entries(people)))).toEqual({ errors: [], warnings: [] });
  });
});
