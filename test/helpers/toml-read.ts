/**
 * A reader for the TOML subset Codex configs in these tests use: `[dotted.table]` headers (bare or quoted keys),
 * `key = "string" | 'literal' | true | false | number | ["array", "of", "scalars"]` on one line, `#` comments.
 * Anything else throws, so a test never passes on a file it did not really read.
 */
type Table = Record<string, unknown>;

function scalar(raw: string): unknown {
  const v = raw.trim();
  if (v.startsWith('"')) return JSON.parse(v);
  if (v.startsWith("'")) return v.slice(1, -1);
  if (v === 'true' || v === 'false') return v === 'true';
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (v.startsWith('[') && v.endsWith(']')) {
    const inner = v.slice(1, -1).trim();
    if (!inner) return [];
    return (inner.match(/"(?:[^"\\]|\\.)*"|'[^']*'|[^,\s][^,]*/g) ?? []).map(scalar);
  }
  throw new Error(`toml-read: unsupported value ${v}`);
}

const keys = (dotted: string) =>
  (dotted.match(/"(?:[^"\\]|\\.)*"|'[^']*'|[^.\s]+/g) ?? []).map((k) =>
    k.startsWith('"') ? (JSON.parse(k) as string) : k.startsWith("'") ? k.slice(1, -1) : k,
  );

function child(t: Table, k: string): Table {
  if (t[k] === undefined) t[k] = {};
  return t[k] as Table;
}

export function readToml(text: string): Table {
  const root: Table = {};
  let current = root;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/^\s+/, '');
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(.+)\]\s*(#.*)?$/.exec(line);
    if (header?.[1]) {
      current = root;
      for (const k of keys(header[1])) current = child(current, k);
      continue;
    }
    const kv = /^("(?:[^"\\]|\\.)*"|[A-Za-z0-9_.-]+)\s*=\s*(.+?)\s*(#[^"']*)?$/.exec(line);
    if (!kv?.[1] || kv[2] === undefined) throw new Error(`toml-read: cannot read line ${raw}`);
    const path = keys(kv[1]);
    let t = current;
    for (const k of path.slice(0, -1)) t = child(t, k);
    t[path.at(-1) as string] = scalar(kv[2]);
  }
  return root;
}
