/**
 * judgeDecision (issue 28 items 4-6): a decision is taken only from a listed person who is not the requester, once,
 * before the approval is decided or expired; approvals count per requirement, one decline declines. And the
 * sentences each outcome is said with.
 */
import { describe, expect, it } from 'vitest';
import {
  approvalProgress,
  type Decision,
  judgeDecision,
  type PendingApproval,
  verifiedCallerId,
} from '../../src/approvals/decide.js';
import {
  approvalRequiredText,
  cannotBeApprovedText,
  decisionRefusal,
  decisionTakenText,
  waitingForApproval,
} from '../../src/approvals/wording.js';

const DEV = 'slack:T1:U_DEV';
const LEAD = 'slack:T1:U_LEAD';
const CFO = 'slack:T1:U_CFO';
const ACC = 'slack:T1:U_ACC';
const NOW = Date.parse('2026-11-28T12:00:00Z');

const approval = (over: Partial<PendingApproval> = {}): PendingApproval => ({
  requester: DEV,
  requirements: [{ rule: 'big', approvers: [LEAD], required: 1 }],
  decisions: [],
  expiresAt: NOW + 3_600_000,
  state: 'pending',
  ...over,
});
const by = (id: string, decision: Decision['decision'] = 'approve') => ({ by: verifiedCallerId(id), decision });

describe('who may decide', () => {
  it('a listed approver who is not the requester approves', () => {
    expect(judgeDecision(approval(), by(LEAD), NOW)).toEqual({ ok: true, state: 'approved', outstanding: [] });
  });

  it('the requester never decides, even when the stored approval lists them', () => {
    const listsRequester = approval({ requirements: [{ rule: 'big', approvers: [DEV, LEAD], required: 1 }] });
    for (const decision of ['approve', 'decline'] as const)
      expect(judgeDecision(listsRequester, by(DEV, decision), NOW)).toEqual({
        ok: false,
        reason: 'requester',
        message: decisionRefusal('requester'),
      });
  });

  it('an unlisted person is refused', () => {
    expect(judgeDecision(approval(), by(CFO), NOW)).toMatchObject({ ok: false, reason: 'not_listed' });
  });

  it('a second decision by the same person is refused', () => {
    const two = approval({
      requirements: [{ rule: 'big', approvers: [LEAD, CFO], required: 2 }],
      decisions: [{ by: LEAD, decision: 'approve', at: NOW - 1 }],
    });
    expect(judgeDecision(two, by(LEAD), NOW)).toMatchObject({ ok: false, reason: 'already_decided' });
    expect(judgeDecision(two, by(LEAD, 'decline'), NOW)).toMatchObject({ ok: false, reason: 'already_decided' });
  });

  it('an expired approval is refused, at its expiry instant and after', () => {
    expect(judgeDecision(approval(), by(LEAD), NOW + 3_600_000 - 1)).toMatchObject({ ok: true });
    expect(judgeDecision(approval(), by(LEAD), NOW + 3_600_000)).toMatchObject({ ok: false, reason: 'expired' });
    expect(judgeDecision(approval({ state: 'expired' }), by(LEAD), NOW)).toMatchObject({
      ok: false,
      reason: 'expired',
    });
  });

  it('a decided approval is refused, by its stored state or by its decisions', () => {
    for (const state of ['approved', 'declined'] as const)
      expect(judgeDecision(approval({ state }), by(LEAD), NOW)).toMatchObject({ ok: false, reason: 'closed' });
    const done = approval({
      requirements: [{ rule: 'big', approvers: [LEAD, CFO], required: 1 }],
      decisions: [{ by: LEAD, decision: 'approve', at: NOW - 1 }],
    });
    expect(judgeDecision(done, by(CFO), NOW)).toMatchObject({ ok: false, reason: 'closed' });
  });
});

describe('what decisions add up to', () => {
  it('N approvals required: N distinct listed people, the requester never counted', () => {
    const three = approval({
      requirements: [{ rule: 'board', approvers: [DEV, LEAD, CFO, ACC], required: 3 }],
    });
    const first = judgeDecision(three, by(LEAD), NOW);
    expect(first).toEqual({
      ok: true,
      state: 'pending',
      outstanding: [{ rule: 'board', missing: 2, waitingOn: [CFO, ACC] }],
    });
    const afterTwo = { ...three, decisions: [{ by: LEAD, decision: 'approve' as const, at: NOW }] };
    expect(judgeDecision(afterTwo, by(CFO), NOW)).toMatchObject({ ok: true, state: 'pending' });
    const afterThree = {
      ...three,
      decisions: [...afterTwo.decisions, { by: CFO, decision: 'approve' as const, at: NOW }],
    };
    expect(judgeDecision(afterThree, by(ACC), NOW)).toMatchObject({ ok: true, state: 'approved' });
  });

  it('decisions stored for the requester or an unlisted person count for nothing', () => {
    const stored = (decisions: Decision[]) =>
      approvalProgress(
        approval({ requirements: [{ rule: 'big', approvers: [DEV, LEAD], required: 1 }], decisions }),
        NOW,
      );
    const waiting = { state: 'pending', outstanding: [{ rule: 'big', missing: 1, waitingOn: [LEAD] }] };
    expect(stored([{ by: DEV, decision: 'approve', at: NOW }])).toEqual(waiting);
    expect(stored([{ by: DEV, decision: 'decline', at: NOW }])).toEqual(waiting);
    expect(stored([{ by: CFO, decision: 'decline', at: NOW }])).toEqual(waiting);
    expect(stored([{ by: CFO, decision: 'approve', at: NOW }])).toEqual(waiting);
  });

  it('every requirement must be met; one approval counts toward each requirement listing its author', () => {
    const both = approval({
      requirements: [
        { rule: 'models', approvers: [LEAD], required: 1 },
        { rule: 'big', approvers: [LEAD, CFO], required: 2 },
      ],
    });
    expect(judgeDecision(both, by(LEAD), NOW)).toEqual({
      ok: true,
      state: 'pending',
      outstanding: [{ rule: 'big', missing: 1, waitingOn: [CFO] }],
    });
    const cfoFirst = judgeDecision(both, by(CFO), NOW);
    expect(cfoFirst).toMatchObject({ ok: true, state: 'pending' });
    const withLead = { ...both, decisions: [{ by: LEAD, decision: 'approve' as const, at: NOW }] };
    expect(judgeDecision(withLead, by(CFO), NOW)).toMatchObject({ ok: true, state: 'approved' });
  });

  it('one decline by a listed approver declines, whatever others approved', () => {
    const two = approval({
      requirements: [{ rule: 'big', approvers: [LEAD, CFO, ACC], required: 2 }],
      decisions: [{ by: LEAD, decision: 'approve', at: NOW }],
    });
    expect(judgeDecision(two, by(CFO, 'decline'), NOW)).toMatchObject({ ok: true, state: 'declined' });
  });
});

describe('wording', () => {
  const nameOf = (id: string) => ({ [LEAD]: 'Ana Lead', [CFO]: 'Chris CFO' })[id];

  it('every refusal of a decision has its own sentence', () => {
    const reasons = ['requester', 'not_listed', 'already_decided', 'closed', 'expired'] as const;
    const texts = reasons.map(decisionRefusal);
    expect(new Set(texts).size).toBe(reasons.length);
    expect(decisionRefusal('requester')).toMatch(/^You asked for this call, so you cannot approve/);
  });

  it('approval required, waiting for, impossible, decision taken', () => {
    expect(
      approvalRequiredText(
        {
          kind: 'approval',
          rules: ['big'],
          requirements: [{ rule: 'big', approvers: [LEAD, CFO], required: 1 }],
          approvers: [CFO, LEAD],
          expiresInMs: 24 * 3_600_000,
        },
        nameOf,
      ),
    ).toBe(
      'This call needs an approval before it is sent. Waiting for approval: 1 approval from Ana Lead (slack:T1:U_LEAD) or Chris CFO (slack:T1:U_CFO) (rule "big"). The request expires in 24 h if not approved. Nothing was sent and nothing was charged.',
    );
    expect(waitingForApproval([{ rule: 'board', missing: 2, waitingOn: [LEAD, CFO, ACC] }])).toBe(
      `Waiting for approval: 2 approvals from ${LEAD}, ${CFO} or ${ACC} (rule "board").`,
    );
    expect(
      cannotBeApprovedText({ kind: 'impossible', rules: ['f3'], rule: 'f3', available: [CFO, ACC], required: 3 }),
    ).toBe(
      `Refused: rule "f3" of the approval policy needs 3 approvals from people other than the requester, and it lists only ${CFO} and ${ACC} besides you. Nothing was sent and nothing was charged. Ask the operator to add approvers to that rule (GENPLAT_APPROVALS).`,
    );
    expect(
      cannotBeApprovedText({ kind: 'impossible', rules: ['self'], rule: 'self', available: [], required: 1 }),
    ).toContain('and it lists nobody besides you.');
    expect(decisionTakenText('approved', [])).toMatch(/^Approved/);
    expect(decisionTakenText('declined', [])).toMatch(/^Declined/);
    expect(decisionTakenText('pending', [{ rule: 'big', missing: 1, waitingOn: [CFO] }], nameOf)).toBe(
      'Your approval is recorded. Waiting for approval: 1 approval from Chris CFO (slack:T1:U_CFO) (rule "big").',
    );
  });
});

describe('credentialOf: whose word an owner id rests on (review 4)', () => {
  it("a bot's people rest on the bot; Slack people, tokens and OAuth subjects on themselves", async () => {
    const { credentialOf } = await import('../../src/approvals/decide.js');
    expect(credentialOf('token:chatbot:alice')).toBe('token:chatbot');
    expect(credentialOf('token:chatbot')).toBe('token:chatbot');
    expect(credentialOf('oidc:0123456789abcdef:lead')).toBe('oidc:0123456789abcdef');
    // Slack signs the person itself: two Slack people of one workspace are two credentials.
    expect(credentialOf('slack:T1:U_LEAD')).toBe('slack:T1:U_LEAD');
    expect(credentialOf('slack:T1:U_ALICE')).not.toBe(credentialOf('slack:T1:U_LEAD'));
  });
});
