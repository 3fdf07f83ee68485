/**
 * People's names (issue 28 item 3): what a request or a token says a person is called. Display names and
 * e-mails are shown in the audit export and in approval messages; they are labels, never identity (the owner id
 * decides who is who), so anything unprintable or oversized is dropped rather than refused.
 */

/** A display name: 1-100 printable characters, no control characters (it reaches CSV files and chat messages). */
export const MAX_NAME_LENGTH = 100;
/** RFC 5321's path limit. */
export const MAX_EMAIL_LENGTH = 254;

/** The trimmed name when printable and of sane length, else undefined. */
export function cleanName(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const name = raw.trim();
  // Control and format characters (bidi overrides and isolates, zero-width), line and paragraph separators: each
  // could reorder or split the "Name (id)" an approver reads (review 4). `\p{C}` covers C0/C1 controls too.
  if (name.length === 0 || name.length > MAX_NAME_LENGTH || /[\p{C}\p{Zl}\p{Zp}]/u.test(name)) return undefined;
  return name;
}

/** A plausible e-mail address (one `@`, no spaces or control characters), else undefined. */
export function cleanEmail(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const email = raw.trim();
  if (email.length > MAX_EMAIL_LENGTH || !/^[^\s@]+@[^\s@]+$/.test(email)) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to refuse control characters.
  if (/[\u0000-\u001f\u007f-\u009f]/.test(email)) return undefined;
  return email;
}

/** `name` and `email` from OpenID claims, when present and clean. */
export function personClaims(claims: Record<string, unknown>): { name?: string; email?: string } {
  const name = cleanName(claims.name);
  const email = cleanEmail(claims.email);
  return { ...(name ? { name } : {}), ...(email ? { email } : {}) };
}

/** At most this many groups are read from a token (Entra ID puts up to 200 in a JWT before its "overage"). */
export const MAX_CLAIMED_GROUPS = 256;

/**
 * The groups (teams) a verified token names in `claim`: a list of strings (or one space-separated string), each
 * kept only when it is a valid group name (people-file rule); anything else is dropped, since no budget or policy
 * can name it. Sorted, without repeats.
 */
export function groupClaims(claims: Record<string, unknown>, claim: string, valid: RegExp): string[] {
  const raw = claims[claim];
  const list = typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw : [];
  const out = new Set<string>();
  for (const g of list.slice(0, MAX_CLAIMED_GROUPS)) if (typeof g === 'string' && valid.test(g)) out.add(g);
  return [...out].sort();
}
