/**
 * Who an owner id is, for people who read (the audit export, approval messages): the people file first (the
 * operator's word), then what the request or token said (OAuth `name`/`email` claims, a delegating bot's `name`).
 * Slack's signed `_meta.slack` carries ids only: Slack people are named by the people file.
 */
import type { PeopleDirectory, Person } from './people-file.js';
import { personEntry } from './same-person.js';

export interface PersonLabel {
  owner: string;
  name?: string;
  email?: string;
  groups: string[];
}

export function describePerson(
  people: PeopleDirectory,
  owner: string,
  claimed: { name?: string | undefined; email?: string | undefined; groups?: readonly string[] | undefined } = {},
): PersonLabel {
  // Through the person's other ids too: a person asking through a bot is named and grouped as themselves.
  const listed: Person | undefined = personEntry(people, owner);
  const name = listed?.name ?? claimed.name;
  const email = listed?.email ?? claimed.email;
  // Teams (budgets, issue 30): the people file's groups and a verified token's groups claim, together.
  const groups = [...new Set([...(listed?.groups ?? []), ...(claimed.groups ?? [])])].sort();
  return { owner, ...(name ? { name } : {}), ...(email ? { email } : {}), groups };
}

/** `Ada Lovelace (slack:T1:U2)`, or the id alone when nobody named it. */
export function personText(label: PersonLabel): string {
  return label.name ? `${label.name} (${label.owner})` : label.owner;
}
