/**
 * One person, several owner ids (the gap issue 29 left): the same human asks through a delegating bot
 * (`token:chatbot:U1`) and decides as their Slack self (`slack:T1:U1`), and the server, which keys everything by
 * owner id, would see two people. The people file's `also` names a person's other ids; these helpers answer "which
 * person is this id" so the two-person rule of approvals compares people, not ids.
 *
 * An alias only ever RESTRICTS: it makes a requester's other ids unable to decide their request and counts one
 * person once toward `approvals_required`. It never lends the person's approver rights to the alias (a policy lists
 * approvers by the ids it trusts; `token:chatbot:…` rests on a bot's token and must not decide as the Slack person).
 * Budgets stay per owner id (docs/operate.md "People with several ids").
 */

/** What the helpers read of a directory entry: its other ids. */
interface WithAliases {
  readonly also?: readonly string[] | undefined;
}

type Directory = ReadonlyMap<string, WithAliases> | Readonly<Record<string, WithAliases>>;

const aliasIndex = new WeakMap<object, Map<string, string>>();

/** alias → the entry's id, built once per directory (a directory is immutable once loaded). */
function indexOf(people: Directory): Map<string, string> {
  let index = aliasIndex.get(people);
  if (!index) {
    index = new Map();
    const entries = people instanceof Map ? people.entries() : Object.entries(people as Record<string, WithAliases>);
    for (const [id, person] of entries) for (const alias of person.also ?? []) index.set(alias, id);
    aliasIndex.set(people, index);
  }
  return index;
}

/** The person an owner id belongs to, as the id of their entry; an id the file does not alias is its own person. */
export function personKey(people: Directory, id: string): string {
  return indexOf(people).get(id) ?? id;
}

/** `(id) => personKey(people, id)`, for the pure rules that take a function (src/approvals/decide.ts). */
export function personKeyIn(people: Directory): (id: string) => string {
  return (id) => personKey(people, id);
}

/** The people file's entry for an id, found through the person's other ids too (name, e-mail, groups). */
export function personEntry<P extends WithAliases>(people: ReadonlyMap<string, P>, id: string): P | undefined {
  return people.get(personKey(people, id));
}
