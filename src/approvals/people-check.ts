/**
 * The policy read against the people directory (GENPLAT_PEOPLE), for start-up and `doctor` once both files are
 * loaded. A group name is free text in the policy, so a typo would make `when.groups` never match (calls go
 * through that should wait) or `approver_groups` supply nobody (calls refused): both are reported, naming the
 * rule and the field. Pure.
 */
import { personKey } from '../people/same-person.js';
import { membersOf, type PeopleDirectory } from './evaluate.js';
import type { ApprovalPolicy } from './policy-schema.js';

/**
 * `errors`: a group a rule names that nobody in the directory is in (the policy cannot work as written).
 * `warnings`: an approver id the directory lacks (still a valid caller id; shown without a name).
 */
export function policyPeopleProblems(
  policy: ApprovalPolicy,
  people: PeopleDirectory,
): { errors: string[]; warnings: string[] } {
  // An id the file lists as another id of a person (`also`) is known too.
  const known = (id: string) =>
    (people instanceof Map ? people.has(id) : Object.hasOwn(people, id)) || personKey(people, id) !== id;
  const problems: string[] = [];
  const warnings: string[] = [];
  policy.rules.forEach((rule, i) => {
    const at = (field: string) => `rules[${i}].${field}`;
    const label = rule.name === `rules[${i}]` ? '' : ` (rule "${rule.name}")`;
    for (const group of rule.when.groups ?? [])
      if (membersOf(group, people).length === 0)
        problems.push(
          `${at('when.groups')}: nobody in GENPLAT_PEOPLE is in group "${group}", so it never matches${label}`,
        );
    for (const group of rule.approverGroups)
      if (membersOf(group, people).length === 0)
        problems.push(
          `${at('approver_groups')}: nobody in GENPLAT_PEOPLE is in group "${group}", so it approves nothing${label}`,
        );
    for (const id of rule.approvers)
      if (!known(id)) warnings.push(`${at('approvers')}: "${id}" is not in GENPLAT_PEOPLE${label}`);
  });
  return { errors: problems, warnings };
}
