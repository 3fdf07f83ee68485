/**
 * `GENPLAT_HTTP_TOKEN_SCOPES` (issue 30 item 6): what each named static token may do, `read`, `quote` or `spend`,
 * e.g. `planner=quote,viewer=read`. A separate variable rather than a suffix on the token, so the secret stays the
 * only thing in GENPLAT_HTTP_TOKEN (a `:` in a token would otherwise be ambiguous) and a level can be read in logs and
 * docs without the token next to it. A token it does not name keeps `spend` (backwards compatible). Only named
 * tokens can be scoped: an unnamed token has no name to write here.
 */
import { ACCESS_LEVELS, type Access } from './scopes.js';

/** name → level, only for the names listed (every other token: spend). */
export type TokenScopes = Readonly<Record<string, Access>>;

const ENTRY = /^([A-Za-z][A-Za-z0-9_.-]{0,31})=([a-z]+)$/;

/**
 * Whether a problem may quote `text`. Every token this server takes is at least 16 characters (GENPLAT_HTTP_TOKEN,
 * GENPLAT_METRICS_TOKEN), and this variable is written like GENPLAT_HTTP_TOKEN (`name=…`): a shorter value is a typo
 * worth showing, a longer one may be a token pasted here by mistake, and a problem goes to stderr and service logs.
 */
const quotable = (text: string) => text.length < 16;

export function parseTokenScopes(
  raw: string | undefined,
  tokenNames: Readonly<Record<string, string>>,
  problems: string[],
): Record<string, Access> {
  const out: Record<string, Access> = {};
  const entries = (raw ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const say = (msg: string) => problems.push(`GENPLAT_HTTP_TOKEN_SCOPES: ${msg}`);
  for (const [i, entry] of entries.entries()) {
    const m = ENTRY.exec(entry);
    if (!m) {
      say(`entry ${i + 1}${quotable(entry) ? ` "${entry}"` : ''} must be <token name>=<read|quote|spend>`);
      continue;
    }
    const [, name, level] = m as unknown as [string, string, string];
    if (!(ACCESS_LEVELS as readonly string[]).includes(level)) {
      say(`"${name}": the scope must be read, quote or spend${quotable(level) ? ` (not "${level}")` : ''}`);
      continue;
    }
    if (!Object.hasOwn(tokenNames, name)) {
      say(`"${name}" is not the name of a token in GENPLAT_HTTP_TOKEN (write ${name}=<token> there)`);
      continue;
    }
    if (out[name] !== undefined) {
      say(`"${name}" is listed twice`);
      continue;
    }
    out[name] = level as Access;
  }
  return out;
}

/** The level of the static caller `owner` (`token:<name>` for a named token), spend when the operator set none. */
export function tokenAccess(scopes: TokenScopes, owner: string): Access {
  const name = owner.startsWith('token:') ? owner.slice('token:'.length) : undefined;
  return (name !== undefined && Object.hasOwn(scopes, name) ? scopes[name] : undefined) ?? 'spend';
}
