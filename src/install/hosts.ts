/**
 * The MCP hosts `genplat-mcp install <host>` writes a stdio or (`--http`) remote entry for: where each keeps its user-level config,
 * in which shape, how it can supply the API key without the key being written (an env reference or a secret
 * prompt), and the traps found driving each one (../shared/mcp-notes.md §9; docs/hosts.md). Pure data and
 * pure builders: src/install/cli.ts does the file work.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export const HOSTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode', 'gemini', 'codex', 'opencode'] as const;
export type HostId = (typeof HOSTS)[number];

/** What goes into the entry: absolute node, absolute bin, its arguments and environment. */
export interface Launch {
  node: string;
  args: string[];
  /** Plain values (the base URL, GENPLAT_ELICITATION, the key when it came from the environment). */
  env: Record<string, string>;
  /** True when the key is not in `env` and the host is to supply it (its reference or prompt). */
  keyFromHost: boolean;
  /** `--trust`: skip the host's own per-tool approval (Gemini `trust`, Codex `default_tools_approval_mode`). */
  trust: boolean;
}

/** `install <host> --http URL`: a remote entry for our server already running at `url`. */
export interface Remote {
  url: string;
  /** `--trust`, as for stdio. */
  trust: boolean;
}

/** The variable every remote entry reads the bearer token from: the one the server itself reads it from. */
export const TOKEN_VAR = 'GENPLAT_HTTP_TOKEN';

export interface HostDef {
  id: HostId;
  label: string;
  format: 'json' | 'toml';
  /** The user-level config file (not a project's: the key must never land in a repository). */
  configPath(env: NodeJS.ProcessEnv, os: NodeJS.Platform): string;
  /** The JSON member that holds the servers (`mcpServers`, `servers`, `mcp`); TOML: the table prefix. */
  serversKey: string;
  /** How the host fills GENPLAT_API_KEY at start without the key in the file; undefined = it cannot. */
  keyReference?: string;
  /** The entry for `launch` (JSON hosts: the object under `serversKey`; Codex: the TOML table's keys). */
  entry(launch: Launch): Record<string, unknown>;
  /** Extra top-level members to merge (VS Code's secret `inputs`). */
  extras?(launch: Launch): { inputs?: unknown[] };
  /** What to tell the user after writing: the traps of this host and their fixes. */
  notes(launch: Launch): string[];
  /**
   * `--http`: the host's remote entry, the token only as the host's own reference to it; `entry` undefined =
   * the host's config file has no remote entry at all (`notes` then says what to do instead).
   */
  remote: {
    entry?(r: Remote): Record<string, unknown>;
    /** The reference as written, for the report. */
    tokenReference?: string;
    extras?(): { inputs?: unknown[] };
    notes(r: Remote): string[];
  };
}

const home = (env: NodeJS.ProcessEnv) => env.HOME || env.USERPROFILE || homedir();
/** Linux/BSD XDG config folder; macOS apps use Application Support, Windows %APPDATA%. */
const appConfigDir = (env: NodeJS.ProcessEnv, os: NodeJS.Platform) =>
  os === 'darwin'
    ? join(home(env), 'Library', 'Application Support')
    : os === 'win32'
      ? (env.APPDATA ?? join(home(env), 'AppData', 'Roaming'))
      : (env.XDG_CONFIG_HOME ?? join(home(env), '.config'));

const withKey = (launch: Launch, reference: string | undefined): Record<string, string> =>
  launch.keyFromHost && reference ? { ...launch.env, GENPLAT_API_KEY: reference } : launch.env;

const VSCODE_INPUT = 'genplat-api-key';
/** The hosts' own spellings of "GENPLAT_API_KEY from my environment" (templates only to keep `${` literal). */
const SHELL_REF = `\${GENPLAT_API_KEY}`;
const CURSOR_REF = `\${env:GENPLAT_API_KEY}`;
/** `Authorization` header with the token as `ref`: hosts that interpolate references inside header values. */
const bearer = (ref: string) => ({ Authorization: `Bearer ${ref}` });
const TOKEN_SHELL_REF = `\${${TOKEN_VAR}}`;
const VSCODE_TOKEN_INPUT = 'genplat-http-token';
const TOKEN_UNSET = `If ${TOKEN_VAR} is missing from the host's environment when it starts, the header carries no token and our server answers 401 "no bearer token".`;
const HEADLESS =
  'Headless runs answer consent forms themselves; install with --headless (GENPLAT_ELICITATION=off) so paid calls ask with a confirmation token instead.';

export const HOST_DEFS: Record<HostId, HostDef> = {
  'claude-desktop': {
    id: 'claude-desktop',
    label: 'Claude Desktop',
    format: 'json',
    configPath: (env, os) => join(appConfigDir(env, os), 'Claude', 'claude_desktop_config.json'),
    serversKey: 'mcpServers',
    entry: (l) => ({ command: l.node, args: l.args, env: l.env }),
    notes: () => [
      'Quit Claude Desktop completely and start it again; the server then shows under Settings → Developer.',
      'Its chat declares elicitation but never shows the form: paid calls ask with a confirmation token.',
    ],
    // Anthropic: "Claude Desktop will not connect to remote servers that are configured directly via
    // claude_desktop_config.json" (support.claude.com/en/articles/11503834): nothing to write.
    remote: {
      notes: (r) => [
        `Claude Desktop's config file has no entry for a remote server, so nothing was written. Honest options:`,
        '1. Let Claude Desktop start its own server over stdio: `genplat-mcp install claude-desktop` (same store and ceilings if it shares the state folder or GENPLAT_DATABASE_URL with the HTTP server).',
        `2. Settings → Connectors → "Add custom connector" with ${r.url}: custom connectors take no auth or OAuth, never a bearer header, and Claude connects to them from Anthropic's addresses, so the server needs OAuth mode (docs/teams-and-oauth.md) at a public https URL.`,
        '3. A stdio-to-HTTP bridge (a third-party package run as a stdio server) would work but holds the token and sits in the paid path: this project does not vet or recommend one; choosing it is your call.',
      ],
    },
  },
  'claude-code': {
    id: 'claude-code',
    label: 'Claude Code',
    format: 'json',
    // User scope (every project): `~/.claude.json`'s top-level mcpServers; CLAUDE_CONFIG_DIR moves it.
    configPath: (env) => join(env.CLAUDE_CONFIG_DIR ?? home(env), '.claude.json'),
    serversKey: 'mcpServers',
    keyReference: SHELL_REF,
    entry: (l) => ({ type: 'stdio', command: l.node, args: l.args, env: withKey(l, SHELL_REF) }),
    notes: (l) => [
      'Check with `claude mcp list` (the server should say ✓ Connected). Claude Code rewrites ~/.claude.json while it runs: if the entry is missing, quit every session and install again.',
      ...(l.env.GENPLAT_ELICITATION === 'off' ? [] : [`\`claude -p\` cancels every consent form. ${HEADLESS}`]),
      'Over HTTP instead, send the header (`--header "Authorization: Bearer …"`): without it Claude Code tries OAuth and reports "Dynamic Client Registration rejected (HTTP 404)" rather than our 401.',
    ],
    remote: {
      // Claude Code expands ${VAR} in an entry's url and headers at start (its "Missing environment variables"
      // check names an unset one); `claude mcp add --transport http … --header` writes this same shape.
      entry: (r) => ({ type: 'http', url: r.url, headers: bearer(TOKEN_SHELL_REF) }),
      tokenReference: TOKEN_SHELL_REF,
      notes: () => [
        `Claude Code must see ${TOKEN_VAR} when it starts: the header is what keeps it from OAuth discovery, which our server does not offer in token mode ("Dynamic Client Registration rejected (HTTP 404)").`,
        'Check with `claude mcp list` (✓ Connected).',
      ],
    },
  },
  cursor: {
    id: 'cursor',
    label: 'Cursor',
    format: 'json',
    configPath: (env) => join(home(env), '.cursor', 'mcp.json'),
    serversKey: 'mcpServers',
    keyReference: CURSOR_REF,
    entry: (l) => ({ type: 'stdio', command: l.node, args: l.args, env: withKey(l, CURSOR_REF) }),
    notes: () => ['Cursor Settings → MCP shows the server; toggle it off and on to restart it after an upgrade.'],
    remote: {
      entry: (r) => ({ url: r.url, headers: bearer(`\${env:${TOKEN_VAR}}`) }),
      tokenReference: `\${env:${TOKEN_VAR}}`,
      notes: () => [
        `Cursor reads ${TOKEN_VAR} from its own environment: started from the dock or a launcher, it does not see a variable exported in a shell profile (start it from that shell, or set it for your session).`,
        TOKEN_UNSET,
      ],
    },
  },
  vscode: {
    id: 'vscode',
    label: 'VS Code',
    format: 'json',
    configPath: (env, os) => join(appConfigDir(env, os), 'Code', 'User', 'mcp.json'),
    serversKey: 'servers',
    keyReference: `\${input:${VSCODE_INPUT}}`,
    entry: (l) => ({ type: 'stdio', command: l.node, args: l.args, env: withKey(l, `\${input:${VSCODE_INPUT}}`) }),
    extras: (l) =>
      l.keyFromHost
        ? {
            inputs: [
              { type: 'promptString', id: VSCODE_INPUT, description: 'Generation Platform API key', password: true },
            ],
          }
        : {},
    notes: (l) => [
      'Run "MCP: List Servers" in the command palette and start the server.',
      ...(l.keyFromHost ? ['VS Code asks for the API key on the first start and keeps it in its secret storage.'] : []),
    ],
    remote: {
      entry: (r) => ({ type: 'http', url: r.url, headers: bearer(`\${input:${VSCODE_TOKEN_INPUT}}`) }),
      tokenReference: `\${input:${VSCODE_TOKEN_INPUT}}`,
      // A password input: VS Code asks once and keeps the answer in its secret storage, never in mcp.json.
      extras: () => ({
        inputs: [
          {
            type: 'promptString',
            id: VSCODE_TOKEN_INPUT,
            description: `genplat-mcp HTTP bearer token (the server's ${TOKEN_VAR})`,
            password: true,
          },
        ],
      }),
      notes: () => [
        "VS Code asks for the token (the server's GENPLAT_HTTP_TOKEN) on the first start and keeps it in its secret storage.",
        'Run "MCP: List Servers" in the command palette and start the server.',
      ],
    },
  },
  gemini: {
    id: 'gemini',
    label: 'Gemini CLI',
    format: 'json',
    configPath: (env) => join(home(env), '.gemini', 'settings.json'),
    serversKey: 'mcpServers',
    // Gemini CLI may withhold variables that look like secrets from MCP servers unless `env` names them.
    keyReference: SHELL_REF,
    entry: (l) => ({
      command: l.node,
      args: l.args,
      env: withKey(l, SHELL_REF),
      ...(l.trust ? { trust: true } : {}),
    }),
    notes: (l) => [
      'Gemini CLI disables every MCP server in a folder it does not trust: answer its trust prompt (or `/permissions`) in the folder you work in, else `/mcp` lists the server as disabled.',
      l.trust
        ? '`trust: true` is set: Gemini runs our tools without its own prompt (the server still asks before spending credits).'
        : 'In `gemini -p` no MCP tool is offered unless the server is trusted: install again with --trust (or run with `--approval-mode yolo`).',
      'If it says only "Disconnected", run the command above by hand: the reason is on its stderr.',
    ],
    remote: {
      // Gemini CLI expands $VAR / ${VAR} in every string of settings.json when it loads the file; `httpUrl` is
      // its Streamable HTTP member (`url` alone means SSE).
      entry: (r) => ({ httpUrl: r.url, headers: bearer(TOKEN_SHELL_REF), ...(r.trust ? { trust: true } : {}) }),
      tokenReference: TOKEN_SHELL_REF,
      notes: (r) => [
        'Gemini CLI disables every MCP server in a folder it does not trust: answer its trust prompt (or `/permissions`) in the folder you work in.',
        r.trust
          ? '`trust: true` is set: Gemini runs our tools without its own prompt (the server still asks before spending credits).'
          : 'In `gemini -p` no MCP tool is offered unless the server is trusted: install again with --trust (or run with `--approval-mode yolo`).',
        `An unset ${TOKEN_VAR} stays in the header as the literal text, and our server answers 401.`,
      ],
    },
  },
  codex: {
    id: 'codex',
    label: 'Codex',
    format: 'toml',
    configPath: (env) => join(env.CODEX_HOME ?? join(home(env), '.codex'), 'config.toml'),
    serversKey: 'mcp_servers',
    keyReference: 'env_vars = ["GENPLAT_API_KEY"]',
    entry: (l) => ({
      command: l.node,
      args: l.args,
      // Codex passes a stdio server only a short list of variables; `env_vars` forwards the key from its own.
      ...(l.keyFromHost ? { env_vars: ['GENPLAT_API_KEY'] } : {}),
      ...(l.trust ? { default_tools_approval_mode: 'approve' } : {}),
      env: l.env,
    }),
    notes: (l) => [
      'Check with `codex mcp list`.',
      l.trust
        ? '`default_tools_approval_mode = "approve"` is set: `codex exec` may call our tools (the server still asks before spending credits).'
        : '`codex exec` refuses MCP tools until the server has `default_tools_approval_mode = "approve"`: install again with --trust for headless runs.',
      ...(l.env.GENPLAT_ELICITATION === 'off' ? [] : [`\`codex exec\` declines every consent form. ${HEADLESS}`]),
      'Codex drops minimum/maximum/pattern from tool schemas: bounds are repeated in the descriptions.',
    ],
    remote: {
      // Codex refuses a literal `bearer_token`; `bearer_token_env_var` names the variable it reads at start.
      entry: (r) => ({
        url: r.url,
        bearer_token_env_var: TOKEN_VAR,
        ...(r.trust ? { default_tools_approval_mode: 'approve' } : {}),
      }),
      tokenReference: `bearer_token_env_var = "${TOKEN_VAR}"`,
      notes: (r) => [
        `Codex reads ${TOKEN_VAR} from its own environment at start; check with \`codex mcp list\`.`,
        r.trust
          ? '`default_tools_approval_mode = "approve"` is set: `codex exec` may call our tools (the server still asks before spending credits).'
          : '`codex exec` refuses MCP tools until the server has `default_tools_approval_mode = "approve"`: install again with --trust for headless runs.',
      ],
    },
  },
  opencode: {
    id: 'opencode',
    label: 'opencode',
    format: 'json',
    configPath: (env) => join(env.XDG_CONFIG_HOME ?? join(home(env), '.config'), 'opencode', 'opencode.json'),
    serversKey: 'mcp',
    keyReference: '{env:GENPLAT_API_KEY}',
    entry: (l) => ({
      type: 'local',
      command: [l.node, ...l.args],
      environment: withKey(l, '{env:GENPLAT_API_KEY}'),
      enabled: true,
    }),
    notes: () => [
      'Check with `opencode mcp list`.',
      'opencode offers App-only tools (confirm_paid_call) to the model; the tool refuses a client without MCP Apps, nothing is spent.',
    ],
    remote: {
      // opencode substitutes {env:VAR} in the config text when it loads it. `oauth: false`: its remote servers
      // try OAuth discovery by default, which a bearer-token server does not offer.
      entry: (r) => ({
        type: 'remote',
        url: r.url,
        headers: bearer(`{env:${TOKEN_VAR}}`),
        oauth: false,
        enabled: true,
      }),
      tokenReference: `{env:${TOKEN_VAR}}`,
      notes: () => [
        'Check with `opencode mcp list`.',
        `An unset ${TOKEN_VAR} becomes an empty token, and our server answers 401.`,
      ],
    },
  },
};
