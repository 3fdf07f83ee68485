/**
 * One person, several owner ids (the gap issue 29 left): the same human asks through a delegating bot
 * (`token:chatbot:U1`) and decides as their Slack self (`slack:T1:U1`), and the server, which keys everything by
 * owner id, would see two people. The people file's `also` names a person's other ids; these helpers answer "which
 * person is this id" so the two-person rule of approvals compares people, not ids.
 *
 * An alias only ever RESTRICTS: it makes a requester's other ids unable to decide their request and counts one
 * person once toward `approvals_required`. It never lends the person's approver rights to the alias (a policy lists
 * approvers by the ids it trusts; `token:chatbot:…` rests on a bot's token and must not decide as the Slack person).
 * Person budgets are the person's: kept on their entry's id, with the spend of all their ids counted together
 * (`idsOfPerson`; docs/operate.md "One person, several ids").
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

/**
 * Every owner id of the person `id` belongs to: their entry's id, then its `also` ids (in file order); an id the
 * file does not know is a person of one id. Whose spend counts against a person budget.
 */
export function idsOfPerson(people: ReadonlyMap<string, WithAliases>, id: string): string[] {
  const key = personKey(people, id);
  return [key, ...(people.get(key)?.also ?? [])];
}

/**
 * Per-person budgets set under an alias id (GENPLAT_USER_BUDGETS, the budgets file's `people`): refused at start,
 * since a person's budget is their entry's and an alias's own figure would be a second, silent one.
 */
export function budgetsOnAliases(
  people: ReadonlyMap<string, WithAliases>,
  budgeted: { source: string; ids: readonly string[] }[],
  problems: string[],
): void {
  for (const { source, ids } of budgeted)
    for (const id of ids) {
      const key = personKey(people, id);
      if (key !== id)
        problems.push(
          `${source}: "${id}" is another id of the person "${key}" (GENPLAT_PEOPLE also): a person has one budget, counted over all their ids; set it on "${key}"`,
        );
    }
}
