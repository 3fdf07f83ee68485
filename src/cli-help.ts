/**
 * `--help` and `--version` for the bin and each command. Flags come from `CLI_FLAGS` (what `parseCli`
 * accepts) and their meanings and the environment variables from `CONFIG_DOCS` / `CLI_DOCS` (what the README
 * table is generated from), so the help cannot list a flag the parser refuses or miss one it takes.
 */
import { type CliFlag, COMMANDS, type Command, type FlagSpec, flagSpecFor, flagsOf } from './config.js';
import { CLI_DOCS, CONFIG_DOCS } from './config-docs.js';

export { packageVersion } from './package-version.js';

import { packageVersion } from './package-version.js';

const USAGE: Record<Command, { line: string; what: string }> = {
  serve: {
    line: 'genplat-mcp [options]',
    what: 'The MCP server for the Generation Platform API, on stdio (or Streamable HTTP with --http).',
  },
  sim: {
    line: 'genplat-mcp sim [options]',
    what: 'The sandbox simulator of the whole platform API on 127.0.0.1, on its own: prints its base URL, then its API key, on stdout, and serves until Ctrl+C.',
  },
  doctor: {
    line: 'genplat-mcp doctor [options]',
    what: 'Checks what a first run needs (configuration, state dir, base URL and key) and says how to fix each problem. Sends nothing billable. Exit code 0 when every check passed.',
  },
  audit: {
    line: 'genplat-mcp audit export [options]',
    what: 'Writes the audit trail of paid calls (who, when, tool, quote, consent, request id, outcome, reported charge) to stdout as CSV or JSON lines. Never a token or the API key.',
  },
  report: {
    line: 'genplat-mcp report [options]',
    what: 'The spend report (docs/operate.md "The spend report"): paid calls of every caller from the audit, grouped by person, team, tool, day, week or month (UTC), with calls, quoted, charged, refunded and counted credits and a total; an aligned table, or CSV with --csv. Reads the store like audit export.',
  },
  db: {
    line: 'genplat-mcp db migrate | db grant <runtime role>',
    what: "The shared PostgreSQL store's least-privilege setup (docs/storage.md), run with GENPLAT_DATABASE_URL set to the migration role (the owner of the genplat_* tables): `migrate` creates or upgrades the schema; `grant` also gives the server's runtime role only what it needs (it cannot alter the audit or rewrite spend) and prints the statements it ran.",
  },
  events: {
    line: 'genplat-mcp events log [options]',
    what: 'Writes the event delivery log (docs/events.md) to stdout: per endpoint, what was delivered, waiting and given up, then each POST (time, event, type, endpoint, HTTP status, error). Never a secret.',
  },
  install: {
    line: 'genplat-mcp install <host> [options]',
    what: "Writes this install into an MCP host's user config (hosts: claude-desktop, claude-code, cursor, vscode, gemini, codex, opencode) with absolute paths to a Node.js >= 22.13 and to this server, beside the servers already there, and says what that host needs next (docs/hosts.md). With --http URL it writes instead the host's remote entry for a server already running there, the bearer token referenced from GENPLAT_HTTP_TOKEN (or the host's secret prompt), never written. The key comes from GENPLAT_API_KEY or is left to the host's own secret prompt or environment reference; a file inside this checkout is never written. Exit code 2 when no suitable Node.js is found or the file cannot be merged.",
  },
};

/** The variables each command reads: the server and doctor the whole configuration, the simulator its folder. */
const ENV_OF: Record<Command, (env: string) => boolean> = {
  serve: () => true,
  doctor: () => true,
  sim: (env) => env === 'GENPLAT_STATE_DIR',
  // The store the server writes: its folder or PostgreSQL URL.
  audit: (env) => env === 'GENPLAT_STATE_DIR' || env === 'GENPLAT_DATABASE_URL',
  report: (env) => env === 'GENPLAT_STATE_DIR' || env === 'GENPLAT_DATABASE_URL' || env === 'GENPLAT_PEOPLE',
  db: (env) => env === 'GENPLAT_DATABASE_URL',
  events: (env) => env === 'GENPLAT_STATE_DIR' || env === 'GENPLAT_DATABASE_URL',
  install: (env) => env === 'GENPLAT_API_KEY' || env === 'GENPLAT_BASE_URL' || env === 'GENPLAT_HTTP_TOKEN',
};

/** Help is read in a terminal: Markdown's backticks are noise there. */
const plain = (s: string) => s.replace(/`/g, '');

/** Wraps `text` to `width` columns, every line after the first indented by `indent` spaces. */
function wrap(text: string, indent: number, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/** `--port N` / `-h, --help`: how the flag is typed. */
function spelling(flag: CliFlag, command: Command): string {
  const spec: FlagSpec = flagSpecFor(flag, command);
  return `${spec.short ? `-${spec.short}, ` : ''}--${flag}${spec.value ? ` ${spec.value}` : ''}`;
}

function flagDoc(command: Command, flag: CliFlag): { meaning: string; default?: string; env?: string } {
  const own = CLI_DOCS.find((d) => d.flag === `--${flag}` && d.commands.includes(command));
  if (own) return own.default === undefined ? { meaning: own.meaning } : { meaning: own.meaning, default: own.default };
  const row = CONFIG_DOCS.find((d) => d.flag === `--${flag}`);
  // test/unit/cli-help.test.ts proves every flag of every command has a row; this is only a fallback.
  if (!row) return { meaning: '(undocumented)' };
  return { meaning: row.meaning, default: row.default, ...(row.env ? { env: row.env } : {}) };
}

/** Two aligned columns: the name, then the wrapped text. */
function table(rows: [string, string][]): string[] {
  const left = Math.min(28, Math.max(...rows.map(([name]) => name.length)) + 2);
  return rows.map(([name, text]) => {
    const pad = name.length + 2 > left ? `\n${' '.repeat(left + 2)}` : ' '.repeat(left - name.length);
    return `  ${name}${pad}${wrap(plain(text), left + 2)}`;
  });
}

/** The full help of one command: usage, what it does, its options, the environment variables it reads. */
export function helpText(command: Command): string {
  const out = [`genplat-mcp ${packageVersion()}`, '', 'Usage:'];
  for (const c of COMMANDS) {
    if (c === command || command === 'serve') out.push(`  ${USAGE[c].line}`);
  }
  out.push('', wrap(USAGE[command].what, 0), '', 'Options:');
  out.push(
    ...table(
      flagsOf(command).map((f) => {
        const d = flagDoc(command, f);
        const extras = [d.env && `env ${d.env}`, d.default && `default: ${d.default}`].filter(Boolean).join('; ');
        return [spelling(f, command), extras ? `${d.meaning} (${extras})` : d.meaning];
      }),
    ),
  );
  const env = CONFIG_DOCS.filter((d) => d.env && ENV_OF[command](d.env));
  out.push('', 'Environment variables (flags above win over them):');
  out.push(...table(env.map((d) => [d.env, `${d.meaning} (default: ${d.default})`])));
  if (command === 'serve')
    out.push('', 'Run `genplat-mcp sim --help` or `genplat-mcp doctor --help` for those commands.');
  out.push('');
  return plain(out.join('\n'));
}
