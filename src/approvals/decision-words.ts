/**
 * The words a decision's outcome is made of (why one is refused, who is still awaited), apart from the rule
 * (decide.ts) and from the sentences (wording.ts), which both read them: neither imports the other's module.
 */
export type DecisionRefusalReason =
  | 'requester'
  /** Another id of the requester's person (the people file's `also`). */
  | 'same_person'
  | 'same_credential'
  | 'not_listed'
  | 'already_decided'
  | 'closed'
  | 'expired';

/** A requirement still short of approvals: how many more, and who could still give them. */
export interface Outstanding {
  rule: string;
  missing: number;
  waitingOn: readonly string[];
}
