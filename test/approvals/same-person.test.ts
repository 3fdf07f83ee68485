/**
 * One person, several ids (the gap issue 29 left): the people file's `also` says that `token:chatbot:U1` (asked
 * through the delegating bot) and `slack:T1:U1` (Slack-signed) are one person, and the two-person rule compares
 * people: the requester cannot decide under another of their ids, a person listed under two ids approves once, and
 * a rule that only the requester's other id could meet is impossible. Another person still decides. The file is
 * refused when an id would belong to two people (so no chain or cycle can be written).
 */
import { describe, expect, it } from 'vitest';
import { judgeDecision, type PendingApproval, verifiedCallerId } from '../../src/approvals/decide.js';
import { approvalNeeded } from '../../src/approvals/evaluate.js';
import { parseApprovalPolicy } from '../../src/approvals/load-policy.js';
import { policyPeopleProblems } from '../../src/approvals/people-check.js';
import { decisionRefusal } from '../../src/approvals/wording.js';
import { describePerson } from '../../src/people/directory.js';
import { parsePeople } from '../../src/people/people-file.js';
import { personKeyIn } from '../../src/people/same-person.js';

const U1_BOT = 'token:chatbot:U1';
const U1_SLACK = 'slack:T1:U1';
const U1_OAUTH = 'oidc:0123456789abcdef';
const LEAD = 'slack:T1:U_LEAD';
const LEAD_BOT = 'token:chatbot:U_LEAD';
const NOW = Date.parse('2026-11-29T12:00:00Z');

function directory() {
  const problems: string[] = [];
  const people = parsePeople(
    {
      [U1_SLACK]: { name: 'Uma One', groups: ['interns'], also: [U1_BOT, U1_OAUTH] },
      [LEAD]: { name: 'Lena Lead', groups: ['leads'], also: [LEAD_BOT] },
    },
    problems,
  );
  expect(problems).toEqual([]);
  return people;
}

const approval = (over: Partial<PendingApproval> = {}): PendingApproval => ({
  requester: U1_BOT,
  requirements: [{ rule: 'big', approvers: [U1_SLACK, LEAD], required: 1 }],
  decisions: [],
  expiresAt: NOW + 3_600_000,
  state: 'pending',
  ...over,
});
const by = (id: string) => ({ by: verifiedCallerId(id), decision: 'approve' as const });

describe('the requester under another id', () => {
  it('is refused, saying the people file makes both ids one person; nothing is recorded', () => {
    const personOf = personKeyIn(directory());
    for (const [requester, decider] of [
      [U1_BOT, U1_SLACK],
      [U1_SLACK, U1_BOT],
      [U1_BOT, U1_OAUTH],
    ] as const) {
      const verdict = judgeDecision(
        approval({ requester, requirements: [{ rule: 'big', approvers: [decider, LEAD], required: 1 }] }),
        by(decider),
        NOW,
        personOf,
      );
      expect(verdict).toEqual({ ok: false, reason: 'same_person', message: decisionRefusal('same_person') });
    }
    expect(decisionRefusal('same_person')).toMatch(/under another of your ids .*GENPLAT_PEOPLE.* one person/);
  });

  it('a different person still approves', () => {
    expect(judgeDecision(approval(), by(LEAD), NOW, personKeyIn(directory()))).toEqual({
      ok: true,
      state: 'approved',
      outstanding: [],
    });
  });

  it('one person listed under two ids approves once, and counts once', () => {
    const personOf = personKeyIn(directory());
    const two = approval({
      requester: 'slack:T1:U_OTHER',
      requirements: [{ rule: 'two', approvers: [LEAD, LEAD_BOT, U1_SLACK], required: 2 }],
    });
    const first = judgeDecision(two, by(LEAD), NOW, personOf);
    expect(first).toMatchObject({ ok: true, state: 'pending' });
    const afterLead = { ...two, decisions: [{ by: LEAD, decision: 'approve' as const, at: NOW }] };
    expect(judgeDecision(afterLead, by(LEAD_BOT), NOW, personOf)).toMatchObject({
      ok: false,
      reason: 'already_decided',
    });
    // A stored second row under the other id (written by hand or a bug) does not make two approvals.
    const stored = {
      ...afterLead,
      decisions: [...afterLead.decisions, { by: LEAD_BOT, decision: 'approve' as const, at: NOW }],
    };
    expect(judgeDecision(stored, by(U1_SLACK), NOW, personOf)).toMatchObject({ ok: true, state: 'approved' });
  });
});

describe('approvalNeeded with aliases', () => {
  it("leaves the requester's other ids out of the approvers, and counts people, not ids", async () => {
    const people = directory();
    const policy = await parseApprovalPolicy(
      JSON.stringify({
        rules: [
          { name: 'one', when: {}, approvers: [U1_SLACK, LEAD] },
          { name: 'two', when: { tools: ['run_model'] }, approvers: [LEAD, LEAD_BOT], approvals_required: 2 },
        ],
      }),
      'json',
      'test',
    );
    const request = { requester: U1_BOT, tool: 'create_talking_video', credits: 10, daySpendAfter: 10 };
    expect(approvalNeeded(policy, { ...request, requesterGroups: [] }, people)).toMatchObject({
      kind: 'approval',
      approvers: [LEAD],
    });
    // Lena under two ids is one person: a rule asking for two people cannot be met by her alone.
    expect(approvalNeeded(policy, { ...request, tool: 'run_model', requesterGroups: [] }, people)).toMatchObject({
      kind: 'impossible',
      rule: 'two',
    });
  });

  it("an approver listed by another of a person's ids is known to the people file (no doctor warning)", async () => {
    const policy = await parseApprovalPolicy(
      JSON.stringify({ rules: [{ when: {}, approvers: [LEAD_BOT, 'slack:T1:U_GONE'] }] }),
      'json',
      'test',
    );
    expect(policyPeopleProblems(policy, directory()).warnings).toEqual([
      'rules[0].approvers: "slack:T1:U_GONE" is not in GENPLAT_PEOPLE',
    ]);
  });

  it("names and groups a person's other ids as the person", () => {
    expect(describePerson(directory(), U1_BOT)).toEqual({
      owner: U1_BOT,
      name: 'Uma One',
      groups: ['interns'],
    });
  });
});

describe('the people file: an id belongs to one person only', () => {
  it('refuses an alias that is another entry, is in two entries, is the entry itself, or is no owner id', () => {
    const problems: string[] = [];
    parsePeople(
      {
        [U1_SLACK]: { also: [LEAD, U1_BOT] },
        [LEAD]: {},
        'slack:T1:U_Y': { also: ['slack:T1:U_Y', 'not an id'] },
        'slack:T1:U_X': { also: 'token:chatbot:X' },
      },
      problems,
    );
    expect(problems).toEqual([
      'GENPLAT_PEOPLE: entry "slack:T1:U_Y": also: lists the entry\'s own id',
      'GENPLAT_PEOPLE: entry "slack:T1:U_Y": also: "not an id" is not an owner id (e.g. token:chatbot:U0456)',
      'GENPLAT_PEOPLE: entry "slack:T1:U_X": also must be a list of owner ids',
      `GENPLAT_PEOPLE: entry "${U1_SLACK}": also: "${LEAD}" is an entry of its own; an id belongs to one person only (merge the two)`,
    ]);
    // A cycle needs an alias that is an entry: refused the same way.
    const cycle: string[] = [];
    parsePeople({ [U1_SLACK]: { also: [U1_BOT] }, [U1_BOT]: { also: [U1_SLACK] } }, cycle);
    expect(cycle).toHaveLength(2);
    expect(cycle[0]).toMatch(/is an entry of its own; an id belongs to one person only/);
    const twice: string[] = [];
    parsePeople({ [U1_SLACK]: { also: [U1_BOT] }, [LEAD]: { also: [U1_BOT] } }, twice);
    expect(twice).toEqual([
      `GENPLAT_PEOPLE: entry "${LEAD}": also: "${U1_BOT}" is already an id of "${U1_SLACK}"; an id belongs to one person only`,
    ]);
  });
});
