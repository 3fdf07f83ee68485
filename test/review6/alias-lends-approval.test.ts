/**
 * Review 6: an alias (the people file's `also`) must never lend a person's approver rights to another of their ids
 * (src/people/same-person.ts). A policy that trusts the lead's Slack-signed id for one rule and the lead's
 * bot-delegated id (`token:chatbot:…`, which rests on the bot's token) for another: a decision made through the bot
 * meets the rule that lists the bot id, never the rule that trusts only the Slack id.
 */
import { describe, expect, it } from 'vitest';
import { judgeDecision, type PendingApproval, verifiedCallerId } from '../../src/approvals/decide.js';
import { parsePeople } from '../../src/people/people-file.js';
import { personKeyIn } from '../../src/people/same-person.js';

const LEAD = 'slack:T1:U_LEAD';
const LEAD_BOT = 'token:chatbot:U_LEAD';
const OTHER = 'slack:T1:U_OTHER';
const REQUESTER = 'slack:T1:U_REQ';
const NOW = Date.parse('2026-11-29T12:00:00Z');

function personOf() {
  const problems: string[] = [];
  const people = parsePeople({ [LEAD]: { name: 'Lena Lead', also: [LEAD_BOT] } }, problems);
  expect(problems).toEqual([]);
  return personKeyIn(people);
}

const approval: PendingApproval = {
  requester: REQUESTER,
  requirements: [
    // Big spends: only the lead's Slack-signed identity.
    { rule: 'big', approvers: [LEAD], required: 1 },
    // Any spend: the lead through the chat bot, or another person.
    { rule: 'any', approvers: [LEAD_BOT, OTHER], required: 1 },
  ],
  decisions: [],
  expiresAt: NOW + 3_600_000,
  state: 'pending',
};

describe('a decision through an alias', () => {
  it('meets only the rules that list the id it was made with', () => {
    const v = judgeDecision(approval, { by: verifiedCallerId(LEAD_BOT), decision: 'approve' }, NOW, personOf());
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    // `big` trusts only the Slack id: a bot-delegated approval must leave it outstanding.
    expect(v.state).toBe('pending');
    expect(v.outstanding.map((o) => o.rule)).toEqual(['big']);
  });

  it('the Slack id meets the rule that lists it, and not the one that lists only the alias', () => {
    const v = judgeDecision(approval, { by: verifiedCallerId(LEAD), decision: 'approve' }, NOW, personOf());
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.state).toBe('pending');
    expect(v.outstanding.map((o) => o.rule)).toEqual(['any']);
  });
});
