/**
 * Names for the report's person rows that the people file does not give: the name the request itself carried at
 * admission (OAuth claims, a delegating bot's `name`: `JobRecord.ownerName`), as `audit export` names its rows
 * (`withRecordedNames`). One record read per such caller (their first call), so a long report costs one read
 * per person, not per call.
 */
import type { PeopleDirectory } from '../people/people-file.js';
import { personEntry } from '../people/same-person.js';
import type { AuditEvent } from '../store/types.js';

export async function recordedNames(
  events: readonly AuditEvent[],
  people: PeopleDirectory,
  recordOf: (ledgerId: string) => Promise<{ ownerName?: string | undefined } | undefined>,
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const asked = new Set<string>();
  for (const e of events) {
    if (e.event !== 'admit' || !e.owner || asked.has(e.owner) || personEntry(people, e.owner)?.name) continue;
    asked.add(e.owner);
    const name = (await recordOf(e.ledgerId))?.ownerName;
    if (name) names.set(e.owner, name);
  }
  return names;
}
