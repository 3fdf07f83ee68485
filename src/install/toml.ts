/**
 * The little TOML `install codex` needs: write one `[mcp_servers.<name>]` table (and its `.env` sub-table) and
 * put it into an existing config.toml in place of the old one, leaving every other byte as it was (comments,
 * other servers, the user's own layout). No TOML library: we only ever write strings, string arrays and
 * tables of strings, and we only need to find table headers to replace ours.
 */

/** A TOML basic string (JSON's escapes are a subset of TOML's for everything we write). */
const str = (s: string) => JSON.stringify(s);
const bare = (k: string) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : str(k));

function value(v: unknown): string {
  if (typeof v === 'string') return str(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(value).join(', ')}]`;
  throw new Error(`cannot write ${typeof v} as TOML`);
}

/** `[prefix.name]` with the scalar keys, then `[prefix.name.<k>]` for every object-valued key that has members. */
export function tomlTable(path: string[], entry: Record<string, unknown>): string {
  const header = path.map(bare).join('.');
  const lines = [`[${header}]`];
  const subs: string[] = [];
  for (const [k, v] of Object.entries(entry)) {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const members = Object.entries(v as Record<string, unknown>);
      if (members.length === 0) continue;
      subs.push('', `[${header}.${bare(k)}]`, ...members.map(([mk, mv]) => `${bare(mk)} = ${value(mv)}`));
    } else lines.push(`${bare(k)} = ${value(v)}`);
  }
  return `${[...lines, ...subs].join('\n')}\n`;
}

/** The dotted key of a `[table]` header line (quotes removed), or undefined for any other line. */
function headerKey(line: string): string[] | undefined {
  const m = /^\s*\[(?!\[)\s*(.+?)\s*\](?!\])\s*(#.*)?$/.exec(line);
  if (!m?.[1]) return undefined;
  return (m[1].match(/"(?:[^"\\]|\\.)*"|'[^']*'|[^.\s]+/g) ?? []).map((p) =>
    p.startsWith('"') ? (JSON.parse(p) as string) : p.startsWith("'") ? p.slice(1, -1) : p,
  );
}

const startsWith = (key: string[], prefix: string[]) =>
  key.length >= prefix.length && prefix.every((p, i) => key[i] === p);

/**
 * `existing` with the table `path` (and its sub-tables) replaced by `table`, or `table` appended.
 * @throws Error when `path` is also defined another way (an inline table or dotted keys), which a header-level
 *   edit cannot replace safely: the caller tells the user to edit by hand.
 */
export function replaceTomlTable(existing: string, path: string[], table: string): string {
  const lines = existing.split('\n');
  const kept: string[] = [];
  let inOurs = false;
  let at = -1;
  for (const line of lines) {
    const key = headerKey(line);
    if (key) {
      inOurs = startsWith(key, path);
      if (inOurs && at < 0) at = kept.length;
    } else if (/^\s*\[\[/.test(line)) inOurs = false;
    if (!inOurs) kept.push(line);
  }
  const [parent, name] = [path.slice(0, -1), path.at(-1) ?? ''];
  // `mcp_servers.genplat.command = …` at the root, or `genplat = { … }` under [mcp_servers]: not ours to untangle.
  const dotted = new RegExp(`^\\s*${parent.map(reEscape).join('\\s*\\.\\s*')}\\s*\\.\\s*"?${reEscape(name)}"?\\s*[.=]`);
  const inline = new RegExp(`^\\s*"?${reEscape(name)}"?\\s*=`);
  let current: string[] = [];
  for (const line of kept) {
    const key = headerKey(line);
    if (key) current = key;
    if (dotted.test(line) || (current.join('.') === parent.join('.') && inline.test(line)))
      throw new Error(`${path.join('.')} is defined inline or with dotted keys`);
  }
  const block = table.replace(/\n$/, '');
  if (at >= 0) {
    // Keep one blank line between our table and what follows it.
    const before = kept.slice(0, at);
    const after = kept.slice(at);
    while (after.length && after[0]?.trim() === '') after.shift();
    return [...before, block, ...(after.length ? ['', ...after] : [''])].join('\n');
  }
  const body = existing.replace(/\s*$/, '');
  return `${body ? `${body}\n\n` : ''}${block}\n`;
}

const reEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
