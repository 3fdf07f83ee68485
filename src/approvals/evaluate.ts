/**
 * Does this paid call need an approval, and from whom? Pure: the policy, the call's facts and the people
 * directory in, the answer out (issue 28 item 4; docs/approvals.md).
 *
 * - Conditions within one rule's `when` all must hold (AND); `{}` matches every paid call.
 * - Every matching rule must be satisfied, each by its own approvers (not "first match"): adding a rule can only
 *   add approvals, never lift one another rule asks for, whatever order the operator wrote them in.
 * - An unbounded quote (credits `null`) matches `credits_at_least` and `day_spend_at_least` whatever N: nothing
 *   proves the call costs less (fail closed).
 * - The requester is removed from every approver set, whatever the file says, under every id the people file gives
 *   them (`also`); approvers are counted as people, not ids. A rule left with fewer possible
 *   approvers than it requires makes the call impossible to approve: the answer says which rule, and the caller
 *   refuses the call rather than leave it waiting for ever.
 */
import { personKey } from '../people/same-person.js';
import type { ApprovalPolicy, ApprovalRule } from './policy-schema.js';

/** What the directory (GENPLAT_PEOPLE) must tell about a person: the groups they are in. */
export interface PersonGroups {
  readonly groups?: readonly string[] | undefined;
  /** The person's other owner ids (src/people/same-person.ts). */
  readonly also?: readonly string[] | undefined;
}

/** caller id → person, as a Map or a plain object. */
export type PeopleDirectory = ReadonlyMap<string, PersonGroups> | Readonly<Record<string, PersonGroups>>;

/** The facts of one paid call (or one campaign, judged on its total). */
export interface ApprovalRequest {
  /** The verified caller id of who asks. */
  requester: string;
  /** The tool called (`create_campaign` for a campaign). */
  tool: string;
  /** A campaign's item tools: a rule naming any of them, or `create_campaign`, matches the campaign. */
  itemTools?: readonly string[] | undefined;
  /** The proven upper bound in displayed credits (a campaign: its total); null = unbounded. */
  credits: number | null;
  /** The requester's displayed credits today including this call; null = unknown (an unbounded call). */
  daySpendAfter: number | null;
  /** The requester's groups (from the people directory). */
  requesterGroups: readonly string[];
}

/** One matched rule's demand: `required` distinct people of `approvers` (the requester never among them). */
export interface Requirement {
  rule: string;
  approvers: readonly string[];
  required: number;
}

export type ApprovalNeed =
  | {
      kind: 'approval';
      /** Names of the matched rules, in file order. */
      rules: readonly string[];
      /** One per matched rule; every one must be met. */
      requirements: readonly Requirement[];
      /** Everyone who may decide (the union of the requirements' approvers), sorted. */
      approvers: readonly string[];
      /** The shortest expiry of the matched rules. */
      expiresInMs: number;
    }
  | {
      kind: 'impossible';
      rules: readonly string[];
      /** The first matched rule that cannot be met once the requester is left out. */
      rule: string;
      /** People other than the requester who could approve under that rule. */
      available: readonly string[];
      required: number;
    };

const entries = (people: PeopleDirectory): Iterable<readonly [string, PersonGroups]> =>
  people instanceof Map ? people.entries() : Object.entries(people as Record<string, PersonGroups>);

/** The caller ids in `group` according to the directory. */
export function membersOf(group: string, people: PeopleDirectory): string[] {
  const out: string[] = [];
  for (const [id, person] of entries(people)) if (person.groups?.includes(group)) out.push(id);
  return out;
}

/** Whether every condition of the rule holds for the request. */
export function ruleMatches(rule: ApprovalRule, request: ApprovalRequest): boolean {
  const w = rule.when;
  if (w.creditsAtLeast !== undefined && request.credits !== null && request.credits < w.creditsAtLeast) return false;
  if (w.unbounded && request.credits !== null) return false;
  if (w.daySpendAtLeast !== undefined && request.daySpendAfter !== null && request.daySpendAfter < w.daySpendAtLeast)
    return false;
  if (w.tools) {
    const called = [request.tool, ...(request.itemTools ?? [])];
    if (!called.some((t) => w.tools?.includes(t))) return false;
  }
  if (w.groups && !request.requesterGroups.some((g) => w.groups?.includes(g))) return false;
  return true;
}

/** The rule's approvers, groups expanded, the requester removed under every id the people file gives them. */
export function approversOf(rule: ApprovalRule, requester: string, people: PeopleDirectory): string[] {
  const all = new Set(rule.approvers);
  for (const group of rule.approverGroups) for (const id of membersOf(group, people)) all.add(id);
  const self = personKey(people, requester);
  return [...all].filter((id) => personKey(people, id) !== self);
}

/** How many different people `ids` are (one person listed under two ids approves once). */
function peopleCount(ids: readonly string[], people: PeopleDirectory): number {
  return new Set(ids.map((id) => personKey(people, id))).size;
}

/**
 * undefined = no approval needed (no policy, or no rule matches). Otherwise what must happen before the call may
 * be sent, or why it never can.
 */
export function approvalNeeded(
  policy: ApprovalPolicy | undefined,
  request: ApprovalRequest,
  people: PeopleDirectory,
): ApprovalNeed | undefined {
  if (!policy) return undefined;
  const matched = policy.rules.filter((r) => ruleMatches(r, request));
  if (matched.length === 0) return undefined;
  const rules = matched.map((r) => r.name);
  const requirements: Requirement[] = [];
  for (const rule of matched) {
    const approvers = approversOf(rule, request.requester, people);
    if (peopleCount(approvers, people) < rule.approvalsRequired)
      return { kind: 'impossible', rules, rule: rule.name, available: approvers, required: rule.approvalsRequired };
    requirements.push({ rule: rule.name, approvers, required: rule.approvalsRequired });
  }
  return {
    kind: 'approval',
    rules,
    requirements,
    approvers: [...new Set(requirements.flatMap((r) => r.approvers))].sort(),
    expiresInMs: Math.min(...matched.map((r) => r.expiresInMs)),
  };
}
