/**
 * The people file (`GENPLAT_PEOPLE`, issue 28 item 3): who the owner ids are, for the audit export and approval
 * messages. JSON or YAML (by the file's extension, `.yaml`/`.yml`; anything else is JSON), one entry per owner id:
 *
 *     slack:T0123:U0456: { name: Ada Lovelace, email: ada@example.com, groups: [video-leads], also: [token:chatbot:U0456] }
 *     token:chatbot:alice: { name: Alice }
 *
 * `also`: the person's other owner ids (src/people/same-person.ts): the ids they reach the server by through a
 * delegating bot, another token, another sign-in. An id belongs to one person only: it is not another entry's id,
 * nor in two `also` lists (so no chain or cycle can be written).
 *
 * Validated at start and by `doctor`: every problem names the entry and the field. Names are labels, never
 * identity: the owner id alone decides whose jobs, budgets and tokens a request reaches.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cleanEmail, cleanName, MAX_NAME_LENGTH } from './names.js';

export interface Person {
  name?: string;
  email?: string;
  groups: string[];
  /** The person's other owner ids (never the entry's own id; each id in the file belongs to one person). */
  also?: string[];
}

/** Owner id → person. */
export type PeopleDirectory = ReadonlyMap<string, Person>;

export const NO_PEOPLE: PeopleDirectory = new Map();

/** An owner id as the server writes them: printable, no spaces (`slack:T1:U2`, `token:bot:alice`, `oidc:…`). */
export const OWNER_ID = /^[A-Za-z0-9][A-Za-z0-9:._@+-]{0,199}$/;
/** A group (team) name, in the people file, the budgets file and an OAuth groups claim alike. */
export const GROUP = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const FIELDS = new Set(['name', 'email', 'groups', 'also']);

/** The entries of an already parsed document; problems are appended as `GENPLAT_PEOPLE: <entry>: <field> …`. */
export function parsePeople(doc: unknown, problems: string[]): PeopleDirectory {
  const people = new Map<string, Person>();
  const say = (msg: string) => problems.push(`GENPLAT_PEOPLE: ${msg}`);
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    say('must be a mapping of owner id → {name, email, groups}');
    return people;
  }
  for (const [id, entry] of Object.entries(doc as Record<string, unknown>)) {
    if (!OWNER_ID.test(id)) {
      say(`entry "${id}": not an owner id (e.g. slack:T0123:U0456, token:chatbot:alice)`);
      continue;
    }
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      say(`entry "${id}": must be a mapping with name, email and/or groups`);
      continue;
    }
    const e = entry as Record<string, unknown>;
    const before = problems.length;
    for (const key of Object.keys(e))
      if (!FIELDS.has(key)) say(`entry "${id}": unknown field "${key}" (name, email, groups, also)`);
    const name = e.name === undefined ? undefined : cleanName(e.name);
    if (e.name !== undefined && !name) say(`entry "${id}": name must be 1-${MAX_NAME_LENGTH} printable characters`);
    const email = e.email === undefined ? undefined : cleanEmail(e.email);
    if (e.email !== undefined && !email) say(`entry "${id}": email is not an e-mail address`);
    const groups: string[] = [];
    if (e.groups !== undefined) {
      if (!Array.isArray(e.groups)) say(`entry "${id}": groups must be a list`);
      else
        for (const g of e.groups) {
          if (typeof g === 'string' && GROUP.test(g)) groups.push(g);
          else say(`entry "${id}": groups: "${String(g)}" must be 1-64 letters, digits or . _ -`);
        }
    }
    const also: string[] = [];
    if (e.also !== undefined) {
      if (!Array.isArray(e.also)) say(`entry "${id}": also must be a list of owner ids`);
      else
        for (const a of e.also) {
          if (typeof a !== 'string' || !OWNER_ID.test(a))
            say(`entry "${id}": also: "${String(a)}" is not an owner id (e.g. token:chatbot:U0456)`);
          else if (a === id) say(`entry "${id}": also: lists the entry's own id`);
          else if (!also.includes(a)) also.push(a);
        }
    }
    if (problems.length > before) continue;
    people.set(id, {
      ...(name ? { name } : {}),
      ...(email ? { email } : {}),
      groups,
      ...(also.length ? { also } : {}),
    });
  }
  onePersonPerId(people, say);
  return people;
}

/**
 * An id belongs to one person only: an alias that is another entry's id, or in two entries' `also`, is refused
 * (which also rules out chains and cycles: every alias points at an entry that is nobody's alias).
 */
function onePersonPerId(people: Map<string, Person>, say: (msg: string) => void): void {
  const owner = new Map<string, string>();
  for (const [id, person] of people)
    for (const alias of person.also ?? []) {
      if (people.has(alias))
        say(`entry "${id}": also: "${alias}" is an entry of its own; an id belongs to one person only (merge the two)`);
      else if (owner.has(alias))
        say(
          `entry "${id}": also: "${alias}" is already an id of "${owner.get(alias)}"; an id belongs to one person only`,
        );
      else owner.set(alias, id);
    }
}

/** Reads and validates the file at `path`. */
export function loadPeopleFile(path: string, problems: string[]): PeopleDirectory {
  const doc = readDataFile('GENPLAT_PEOPLE', path, problems);
  return doc === undefined ? NO_PEOPLE : parsePeople(doc, problems);
}

/**
 * A JSON or YAML (`.yaml`/`.yml`) file's document; undefined with a problem naming `variable` when it cannot be
 * read or parsed (the people file, the budgets file).
 */
export function readDataFile(variable: string, path: string, problems: string[]): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    problems.push(`${variable}: cannot read the file "${path}" (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
  const yaml = /\.ya?ml$/i.test(path);
  try {
    return yaml ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    problems.push(`${variable}: "${path}" is not valid ${yaml ? 'YAML' : 'JSON'} (${why})`);
    return undefined;
  }
}

/** `yaml` is loaded only for a YAML people file. */
function parseYaml(text: string): unknown {
  const { parse } = createRequire(import.meta.url)('yaml') as { parse(src: string, opts: object): unknown };
  // Plain data only: no custom tags, no aliases blowing up (maxAliasCount), unique keys.
  return parse(text, { uniqueKeys: true, maxAliasCount: 100 });
}
