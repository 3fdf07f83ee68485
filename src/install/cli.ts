/**
 * `genplat-mcp install <host> [--sandbox] [--print] [--node PATH] [--config PATH] [--trust] [--headless]`:
 * writes this install's stdio entry into a host's user-level config, with an absolute node that is new enough
 * and the absolute bin, merged beside the servers already there. `--http URL [--trust]` writes the host's remote
 * entry for a server already running at URL instead, its bearer token only as the host's reference to
 * GENPLAT_HTTP_TOKEN (or VS Code's password prompt). The key comes from GENPLAT_API_KEY or is left
 * to the host (an env reference or its secret prompt); no file inside this checkout is ever written, so the key
 * cannot end up in the repository. Runs before the Node gate (it is how a user on an old Node gets a new one
 * into the host's config), so it imports nothing that needs Node 22. docs/hosts.md is the guide.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InstallArgs } from '../config.js';
import { HOST_DEFS, type HostDef, type Launch, TOKEN_VAR } from './hosts.js';
import { findNode } from './node-find.js';
import { replaceTomlTable, tomlTable } from './toml.js';

export interface InstallOptions {
  env: NodeJS.ProcessEnv;
  out?: (line: string) => void;
  err?: (line: string) => void;
  /** Tests: another OS's default paths. */
  os?: NodeJS.Platform;
  /** Tests: pretend to run on another node (path, version). */
  execPath?: string;
  version?: string;
}

/** The folder holding this install's package.json (src/install in tests, dist/src when built and bundled). */
export function packageRoot(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'genplat-mcp') return dir;
    } catch {
      // not here: one level up
    }
    if (dirname(dir) === dir) throw new Error('cannot find the genplat-mcp package root');
  }
}

/** Real path of `path`, resolving symlinks of the part that exists (the file itself may not yet). */
function realish(path: string): string {
  let existing = path;
  const rest: string[] = [];
  while (!existsSync(existing) && dirname(existing) !== existing) {
    rest.unshift(basename(existing));
    existing = dirname(existing);
  }
  return join(realpathSync(existing), ...rest);
}

export function isInside(path: string, folder: string): boolean {
  const rel = relative(realish(folder), realish(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** JSON with `//` and `/* *\/` comments and trailing commas removed (strings untouched): JSONC as hosts accept it. */
export function stripJsonc(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(i));
      const s = m?.[0] ?? text.slice(i);
      out += s;
      i += s.length - 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else out += c;
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

class Refusal extends Error {}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads an existing JSON config, refusing what a rewrite would damage (comments) or cannot merge into. */
function readJson(path: string, text: string, def: HostDef): Json {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    try {
      JSON.parse(stripJsonc(text));
    } catch {
      throw new Refusal(`${path} is not valid JSON; fix it (or move it away) and run install again.`);
    }
    throw new Refusal(
      `${path} has comments or trailing commas, which rewriting it would drop: add the entry below by hand (install ${def.id} --print shows it).`,
    );
  }
  if (!isObject(parsed)) throw new Refusal(`${path} is not a JSON object; fix it and run install again.`);
  const servers = parsed[def.serversKey];
  if (servers !== undefined && !isObject(servers))
    throw new Refusal(`"${def.serversKey}" in ${path} is not an object; fix it and run install again.`);
  return parsed;
}

/**
 * Same folder, then rename: the host never reads half a file. A new file is the user's alone; an existing one
 * keeps its mode, minus group and other access when it now holds the key.
 */
function writeAtomic(path: string, text: string, secret: boolean): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const mode = existsSync(path) ? statSync(path).mode & (secret ? 0o700 : 0o777) : 0o600;
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, path);
}

/** The snippet as the host's file spells it (JSON member or TOML table), for --print and the hand-edit refusal. */
function snippet(def: HostDef, name: string, entry: Json, extras: { inputs?: unknown[] }): string {
  if (def.format === 'toml') return tomlTable([def.serversKey, name], entry);
  return `${JSON.stringify({ [def.serversKey]: { [name]: entry }, ...extras }, null, 2)}\n`;
}

/** What install writes and reports, stdio or remote alike. */
interface Plan {
  name: string;
  entry: Json;
  extras: { inputs?: unknown[] };
  notes: string[];
  /** Report lines after the target line (node, key or token, command or URL). */
  facts: string[];
  /** --print's lines before the notes. */
  printFacts: string[];
  /** The file will hold a secret (the API key): it becomes the user's alone. */
  secret: boolean;
}

/**
 * `--http URL`: the host's remote entry. The token is never written, even when GENPLAT_HTTP_TOKEN is set here:
 * every host but Claude Desktop can read it at start (env reference or secret prompt), and a literal in a config
 * file is one copy more to leak. Claude Desktop's file has no remote entry: exit 2 with the options.
 */
function remotePlan(def: HostDef, args: InstallArgs, env: NodeJS.ProcessEnv): Plan | { refusal: string[] } {
  const url = args.http ?? '';
  const remote = { url, trust: args.trust };
  if (!def.remote.entry) return { refusal: def.remote.notes(remote) };
  const tokenHere = Boolean(env[TOKEN_VAR]?.trim());
  const fromPrompt = def.remote.extras !== undefined;
  // Nothing of the token is printed or written, so --print needs no "never printed" caveat.
  const tokenLine = `token: not written; ${def.label} supplies it at start (${def.remote.tokenReference})`;
  const unset =
    tokenHere || fromPrompt
      ? []
      : [`${TOKEN_VAR} is not set here: set it to the server's token in the environment ${def.label} starts from.`];
  return {
    name: 'genplat',
    entry: def.remote.entry(remote),
    extras: def.remote.extras?.() ?? {},
    notes: [...def.remote.notes(remote), ...unset],
    facts: [`• ${tokenLine}`, `• url: ${url}`],
    printFacts: [`# ${tokenLine}`],
    secret: false,
  };
}

/** Paths that work today and break later: npm's npx cache (npm may clear it), a temp folder. */
function locationNotes(root: string, node: string): string[] {
  const fragile = (p: string) => /[\\/]_npx[\\/]/.test(p);
  const notes: string[] = [];
  if (fragile(root) || fragile(node))
    notes.push(
      "this copy runs from npm's npx cache, which npm may clear: `npm install -g genplat-mcp` (or a checkout) and run install from there for a lasting entry.",
    );
  return notes;
}

export function runInstall(args: InstallArgs, opts: InstallOptions): number {
  const out = opts.out ?? ((l: string) => process.stdout.write(`${l}\n`));
  const err = opts.err ?? ((l: string) => process.stderr.write(`${l}\n`));
  const refuse = (why: string) => {
    err(`genplat-mcp install: ${why}`);
    return 2;
  };
  const def = HOST_DEFS[args.host];
  const root = packageRoot();
  const planned = args.http ? remotePlan(def, args, opts.env) : stdioPlan(def, args, opts, root);
  if ('refusal' in planned) {
    const [first = '', ...rest] = planned.refusal;
    refuse(first);
    for (const line of rest) err(`  ${line}`);
    return 2;
  }
  const { name, entry, extras, notes } = planned;

  if (args.print) {
    out(`# ${def.label}: merge into ${args.config ?? def.configPath(opts.env, opts.os ?? process.platform)}`);
    out(snippet(def, name, entry, extras).trimEnd());
    for (const f of planned.printFacts) out(f);
    for (const n of notes) out(`# ${n}`);
    return 0;
  }

  const target = resolve(args.config ?? def.configPath(opts.env, opts.os ?? process.platform));
  if (isInside(target, root))
    return refuse(
      `${target} is inside this checkout (${root}): a config there could carry the key into the repository. Install into the host's user config (leave --config out) or a path outside the checkout.`,
    );
  const existed = existsSync(target);
  let text: string;
  let others: string[];
  let replaced: boolean;
  try {
    const before = existed ? readFileSync(target, 'utf8') : '';
    if (def.format === 'toml') {
      const table = tomlTable([def.serversKey, name], entry);
      const names = [
        ...before.matchAll(new RegExp(`^\\s*\\[\\s*${def.serversKey}\\.("[^"]+"|[A-Za-z0-9_-]+)\\s*\\]`, 'gm')),
      ].map((m) => (m[1] ?? '').replace(/^"|"$/g, ''));
      replaced = names.includes(name);
      others = names.filter((n) => n !== name);
      try {
        text = replaceTomlTable(before, [def.serversKey, name], table);
      } catch {
        throw new Refusal(
          `${target} defines ${def.serversKey}.${name} inline or with dotted keys; replace it by hand with:\n${table}`,
        );
      }
    } else {
      const doc = readJson(target, before, def);
      const servers = (doc[def.serversKey] as Json | undefined) ?? {};
      replaced = name in servers;
      others = Object.keys(servers).filter((n) => n !== name);
      doc[def.serversKey] = { ...servers, [name]: entry };
      const inputs = extras.inputs;
      if (inputs) {
        const have = Array.isArray(doc.inputs) ? (doc.inputs as unknown[]) : [];
        const ids = new Set(have.map((i) => (isObject(i) ? i.id : undefined)));
        doc.inputs = [...have, ...inputs.filter((i) => !ids.has((i as Json).id))];
      }
      text = `${JSON.stringify(doc, null, 2)}\n`;
    }
    writeAtomic(target, text, planned.secret);
  } catch (e) {
    if (e instanceof Refusal) return refuse(e.message);
    return refuse(`cannot write ${target}: ${e instanceof Error ? e.message : String(e)}`);
  }

  out(`genplat-mcp install ${def.id}${args.http ? ' --http' : ''}`);
  out(
    `✓ ${replaced ? 'replaced' : 'added'} "${name}" in ${target}${existed ? '' : ' (new file)'}${others.length ? `; kept ${others.length} other server(s): ${others.join(', ')}` : ''}`,
  );
  for (const f of planned.facts) out(f);
  for (const n of notes) out(`• ${n}`);
  return 0;
}

/** The stdio entry: an absolute new-enough node running this install's built bin, the key from here or the host. */
function stdioPlan(def: HostDef, args: InstallArgs, opts: InstallOptions, root: string): Plan | { refusal: string[] } {
  const refuse = (why: string) => ({ refusal: [why] });
  const bin = join(root, 'dist', 'src', 'index.js');
  if (!existsSync(bin)) return refuse(`${bin} is missing: run \`npm run build\` in ${root} first.`);

  const node = findNode({
    given: args.node,
    root,
    ...(opts.execPath ? { execPath: opts.execPath } : {}),
    ...(opts.version ? { version: opts.version } : {}),
  });
  if ('problem' in node) return refuse(node.problem);

  const env: Record<string, string> = {};
  const key = opts.env.GENPLAT_API_KEY?.trim() || undefined;
  let keyFromHost = false;
  if (!args.sandbox) {
    const base = opts.env.GENPLAT_BASE_URL?.trim();
    if (!base)
      return refuse(
        'GENPLAT_BASE_URL is not set: run install with it set to the platform base URL (it is written into the config), or with --sandbox to try the simulator.',
      );
    env.GENPLAT_BASE_URL = base;
    if (key && !args.print) env.GENPLAT_API_KEY = key;
    else if (def.keyReference) keyFromHost = true;
    else if (args.print) env.GENPLAT_API_KEY = '<your GENPLAT_API_KEY>';
    else
      return refuse(
        `${def.label} cannot read the key from anywhere but its config: run install with GENPLAT_API_KEY set (it is written to that file only), or with --sandbox.`,
      );
  }
  if (args.headless) env.GENPLAT_ELICITATION = 'off';
  const launch: Launch = {
    node: node.path,
    args: [bin, ...(args.sandbox ? ['--sandbox'] : [])],
    env,
    keyFromHost,
    trust: args.trust,
  };
  const name = args.sandbox ? 'genplat-sandbox' : 'genplat';
  const entry = def.entry(launch);
  const notes = def.notes(launch);
  const keyLine = args.sandbox
    ? 'key: none needed (--sandbox: the built-in simulator, no credits spent)'
    : keyFromHost
      ? `key: not written; ${def.label} supplies GENPLAT_API_KEY at start (${def.keyReference})`
      : 'key: from GENPLAT_API_KEY, written to this file only';

  return {
    name,
    entry,
    extras: def.extras?.(launch) ?? {},
    notes: [...notes, ...locationNotes(root, node.path)],
    facts: [
      `✓ node: ${node.path} (${node.version}, ${node.source})`,
      `• ${keyLine}`,
      `• command: ${[launch.node, ...launch.args].join(' ')}`,
    ],
    printFacts: [
      `# node: ${node.path} (${node.version}, ${node.source})`,
      `# ${key && !args.sandbox ? 'key: never printed; ' : ''}${keyLine}`,
    ],
    secret: env.GENPLAT_API_KEY !== undefined,
  };
}
