/**
 * `genplat-mcp install <host>` through the built bin (issue 20 item 1): for every host, into a temp config that
 * already holds another server, the exact entry it writes (absolute node and bin), the other server kept; the
 * written command line, spawned as the host would, answers initialize + tools/list over stdio with --sandbox.
 * `--print` writes nothing and never prints the key; an old Node (--node) and a target inside the checkout are
 * refused with exit 2. `--http URL`: every host's exact remote entry, the token (set in the environment) never in
 * the file, and the entry read back with the host's documented reference rule reaches our running HTTP server
 * (the real hosts read them in hosts/run.mjs). docs/hosts.md is the guide these entries back.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRY, ensureBuilt, ROOT } from '../helpers/build.js';
import { readToml } from '../helpers/toml-read.js';

const NODE = process.execPath;
/** The hosts' references to the key, as written (templates keep `${` literal). */
const SHELL_REF = `\${GENPLAT_API_KEY}`;
const VSCODE_REF = `\${input:genplat-api-key}`;
const dirs: string[] = [];
const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), 'genplat-install-'));
  dirs.push(d);
  return d;
};

/** The bin with exactly `env` (plus PATH): no developer key or HOME leaks in. */
function install(args: string[], env: Record<string, string> = {}, node = NODE) {
  const r = spawnSync(node, [ENTRY, 'install', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: scratch(), ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Json = Record<string, unknown>;
interface HostCase {
  host: string;
  file: string;
  /** The config before: another server the install must keep. */
  before: string;
  parse(text: string): Json;
  /** The whole file after `install <host> --sandbox`. */
  after(other: unknown): Json;
  /** The command line a host would run, read back from the parsed file. */
  launch(doc: Json): { command: string; args: string[]; env: Record<string, string> };
}

const BIN_ARGS = [ENTRY, '--sandbox'];
const OTHER = { command: '/usr/bin/other-server', args: ['--x'] };
const json = (t: string) => JSON.parse(t) as Json;
const at = (doc: Json, ...path: string[]) => path.reduce<unknown>((v, k) => (v as Json)[k], doc) as Json;
const std = (e: Json) => ({
  command: e.command as string,
  args: e.args as string[],
  env: (e.env ?? {}) as Record<string, string>,
});

const CASES: HostCase[] = [
  {
    host: 'claude-desktop',
    file: 'claude_desktop_config.json',
    before: JSON.stringify({ mcpServers: { other: OTHER }, globalShortcut: 'Ctrl+Space' }),
    parse: json,
    after: (other) => ({
      mcpServers: { other, 'genplat-sandbox': { command: NODE, args: BIN_ARGS, env: {} } },
      globalShortcut: 'Ctrl+Space',
    }),
    launch: (d) => std(at(d, 'mcpServers', 'genplat-sandbox')),
  },
  {
    host: 'claude-code',
    file: '.claude.json',
    before: JSON.stringify({ numStartups: 3, mcpServers: { other: OTHER }, projects: {} }),
    parse: json,
    after: (other) => ({
      numStartups: 3,
      mcpServers: { other, 'genplat-sandbox': { type: 'stdio', command: NODE, args: BIN_ARGS, env: {} } },
      projects: {},
    }),
    launch: (d) => std(at(d, 'mcpServers', 'genplat-sandbox')),
  },
  {
    host: 'cursor',
    file: 'mcp.json',
    before: JSON.stringify({ mcpServers: { other: OTHER } }),
    parse: json,
    after: (other) => ({
      mcpServers: { other, 'genplat-sandbox': { type: 'stdio', command: NODE, args: BIN_ARGS, env: {} } },
    }),
    launch: (d) => std(at(d, 'mcpServers', 'genplat-sandbox')),
  },
  {
    host: 'vscode',
    file: 'mcp.json',
    before: JSON.stringify({ servers: { other: OTHER }, inputs: [] }),
    parse: json,
    after: (other) => ({
      servers: { other, 'genplat-sandbox': { type: 'stdio', command: NODE, args: BIN_ARGS, env: {} } },
      inputs: [],
    }),
    launch: (d) => std(at(d, 'servers', 'genplat-sandbox')),
  },
  {
    host: 'gemini',
    file: 'settings.json',
    before: JSON.stringify({ theme: 'Default', mcpServers: { other: OTHER } }),
    parse: json,
    after: (other) => ({
      theme: 'Default',
      mcpServers: { other, 'genplat-sandbox': { command: NODE, args: BIN_ARGS, env: {} } },
    }),
    launch: (d) => std(at(d, 'mcpServers', 'genplat-sandbox')),
  },
  {
    host: 'codex',
    file: 'config.toml',
    before: '# my settings\nmodel = "o4"\n\n[mcp_servers.other]\ncommand = "/usr/bin/other-server"\nargs = ["--x"]\n',
    parse: readToml,
    after: (other) => ({
      model: 'o4',
      mcp_servers: { other, 'genplat-sandbox': { command: NODE, args: BIN_ARGS } },
    }),
    launch: (d) => std(at(d, 'mcp_servers', 'genplat-sandbox')),
  },
  {
    host: 'opencode',
    file: 'opencode.json',
    before: JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      mcp: { other: { type: 'local', command: ['x'] } },
    }),
    parse: json,
    after: (other) => ({
      $schema: 'https://opencode.ai/config.json',
      mcp: {
        other,
        'genplat-sandbox': { type: 'local', command: [NODE, ...BIN_ARGS], environment: {}, enabled: true },
      },
    }),
    launch: (d) => {
      const e = at(d, 'mcp', 'genplat-sandbox');
      const [command, ...args] = e.command as string[];
      return { command: command as string, args, env: e.environment as Record<string, string> };
    },
  },
];

describe('install <host> --sandbox into a config holding another server', () => {
  it.each(CASES)(
    '$host: the exact entry, the other server kept; the written command line serves MCP',
    async (c) => {
      const dir = scratch();
      const file = join(dir, c.file);
      writeFileSync(file, c.before);
      const other =
        c.host === 'codex'
          ? OTHER
          : (c.parse(c.before) as Json)[c.host === 'vscode' ? 'servers' : c.host === 'opencode' ? 'mcp' : 'mcpServers'];
      const r = install([c.host, '--sandbox', '--config', file]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`added "genplat-sandbox" in ${file}; kept 1 other server(s): other`);
      const doc = c.parse(readFileSync(file, 'utf8'));
      expect(doc).toEqual(c.after((other as Json).other ?? other));
      if (c.host === 'codex') expect(readFileSync(file, 'utf8')).toMatch(/^# my settings\nmodel = "o4"\n/);

      // Run again: replaced in place, nothing duplicated.
      const again = install([c.host, '--sandbox', '--config', file]);
      expect(again.stdout).toContain('replaced "genplat-sandbox"');
      expect(c.parse(readFileSync(file, 'utf8'))).toEqual(doc);

      // What the host would run: exactly the written command, args and env (plus PATH, a scratch HOME and state).
      const { command, args, env } = c.launch(doc);
      const home = scratch();
      const transport = new StdioClientTransport({
        command,
        args,
        env: { PATH: process.env.PATH ?? '', HOME: home, GENPLAT_STATE_DIR: join(home, 'state'), ...env },
        stderr: 'pipe',
      });
      const client = new Client({ name: `install-${c.host}`, version: '0.0.0' });
      try {
        await client.connect(transport);
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_avatars', 'create_talking_video']));
      } finally {
        await client.close();
      }
    },
    60_000,
  );
});

describe('install: the key', () => {
  const real = { GENPLAT_BASE_URL: 'https://api.example.com/v1', GENPLAT_API_KEY: 'gp_live_0123456789abcdef' };

  it("a key in the environment is written to the user config only, and the file becomes the user's alone", () => {
    const file = join(scratch(), 'mcp.json');
    writeFileSync(file, '{}');
    chmodSync(file, 0o644);
    const r = install(['cursor', '--config', file], real);
    expect(r.code, r.stderr).toBe(0);
    expect(json(readFileSync(file, 'utf8'))).toEqual({
      mcpServers: { genplat: { type: 'stdio', command: NODE, args: [ENTRY], env: real } },
    });
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(real.GENPLAT_API_KEY);
  });

  it.each([
    [
      'vscode',
      (d: Json) => d,
      {
        servers: {
          genplat: {
            type: 'stdio',
            command: NODE,
            args: [ENTRY],
            env: { GENPLAT_BASE_URL: real.GENPLAT_BASE_URL, GENPLAT_API_KEY: VSCODE_REF },
          },
        },
        inputs: [
          { type: 'promptString', id: 'genplat-api-key', description: 'Generation Platform API key', password: true },
        ],
      },
    ],
    [
      'opencode',
      (d: Json) => at(d, 'mcp', 'genplat'),
      {
        type: 'local',
        command: [NODE, ENTRY],
        environment: { GENPLAT_BASE_URL: real.GENPLAT_BASE_URL, GENPLAT_API_KEY: '{env:GENPLAT_API_KEY}' },
        enabled: true,
      },
    ],
    [
      'gemini',
      (d: Json) => at(d, 'mcpServers', 'genplat'),
      {
        command: NODE,
        args: [ENTRY],
        env: { GENPLAT_BASE_URL: real.GENPLAT_BASE_URL, GENPLAT_API_KEY: SHELL_REF },
      },
    ],
  ])('%s without a key in the environment: the host supplies it, nothing secret is written', (host, pick, expected) => {
    const file = join(scratch(), 'c.json');
    const r = install([host, '--config', file], { GENPLAT_BASE_URL: real.GENPLAT_BASE_URL });
    expect(r.code, r.stderr).toBe(0);
    expect(pick(json(readFileSync(file, 'utf8')))).toEqual(expected);
  });

  it('codex without a key: env_vars forwards it; --trust and --headless set the approval mode and token consent', () => {
    const file = join(scratch(), 'config.toml');
    const r = install(['codex', '--trust', '--headless', '--config', file], {
      GENPLAT_BASE_URL: real.GENPLAT_BASE_URL,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readToml(readFileSync(file, 'utf8'))).toEqual({
      mcp_servers: {
        genplat: {
          command: NODE,
          args: [ENTRY],
          env_vars: ['GENPLAT_API_KEY'],
          default_tools_approval_mode: 'approve',
          env: { GENPLAT_BASE_URL: real.GENPLAT_BASE_URL, GENPLAT_ELICITATION: 'off' },
        },
      },
    });
  });

  it('gemini --trust marks the server trusted and says why -p needs it', () => {
    const file = join(scratch(), 'settings.json');
    const r = install(['gemini', '--sandbox', '--trust', '--config', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(at(json(readFileSync(file, 'utf8')), 'mcpServers', 'genplat-sandbox').trust).toBe(true);
    const plain = install(['gemini', '--sandbox', '--print']);
    expect(plain.stdout).toContain('In `gemini -p` no MCP tool is offered unless the server is trusted');
    expect(plain.stdout).toContain('disables every MCP server in a folder it does not trust');
  });

  it('claude-desktop without a key is refused (it has no reference or prompt), writing nothing', () => {
    const file = join(scratch(), 'claude_desktop_config.json');
    const r = install(['claude-desktop', '--config', file], { GENPLAT_BASE_URL: real.GENPLAT_BASE_URL });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Claude Desktop cannot read the key from anywhere but its config');
    expect(existsSync(file)).toBe(false);
  });
});

describe('install: refusals and --print', () => {
  it('--print shows the entry and writes nothing; the key is never printed', () => {
    const home = scratch();
    const key = 'gp_live_print_0123456789';
    const r = install(['claude-code', '--print'], {
      HOME: home,
      GENPLAT_BASE_URL: 'https://api.example.com',
      GENPLAT_API_KEY: key,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`# Claude Code: merge into ${join(home, '.claude.json')}`);
    expect(r.stdout).toContain(`"GENPLAT_API_KEY": "${SHELL_REF}"`);
    expect(r.stdout).not.toContain(key);
    expect(existsSync(join(home, '.claude.json'))).toBe(false);
  });

  it("without --config it writes the host's own user config under HOME", () => {
    const home = scratch();
    const r = install(['cursor', '--sandbox'], { HOME: home });
    expect(r.code, r.stderr).toBe(0);
    expect(Object.keys(at(json(readFileSync(join(home, '.cursor', 'mcp.json'), 'utf8')), 'mcpServers'))).toEqual([
      'genplat-sandbox',
    ]);
  });

  it('a Node older than 22.13 named with --node is refused with exit 2', () => {
    const fake = join(scratch(), 'node20');
    writeFileSync(fake, '#!/bin/sh\necho v20.20.2\n', { mode: 0o755 });
    const candidates = [fake, ...(existsSync('/usr/bin/node') ? ['/usr/bin/node'] : [])];
    for (const old of candidates) {
      const version = spawnSync(old, ['-p', 'process.version'], { encoding: 'utf8' }).stdout.trim();
      if (!/^v(1\d|20|21|22\.([0-9]|1[0-2]))\./.test(version)) continue; // a system node that is new enough
      const file = join(scratch(), 'mcp.json');
      const r = install(['cursor', '--sandbox', '--node', old, '--config', file]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--node ${old} is Node.js ${version}; the server needs >= 22.13`);
      expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
      expect(existsSync(file)).toBe(false);
    }
  });

  it('run by an old Node itself, install still works and writes the pinned Node 22', () => {
    if (!existsSync('/usr/bin/node')) return;
    const old = spawnSync('/usr/bin/node', ['-p', 'process.version'], { encoding: 'utf8' }).stdout.trim();
    if (!/^v(1\d|20|21)\./.test(old)) return;
    const r = install(['cursor', '--sandbox', '--print'], {}, '/usr/bin/node');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`"command": "${join(ROOT, 'node_modules', 'node', 'bin', 'node')}"`);
    expect(r.stdout).toContain("this checkout's pinned Node.js");
  });

  it('a target inside the checkout is refused with exit 2', () => {
    const target = join(ROOT, '.install-test-config.json');
    const r = install(['cursor', '--sandbox', '--config', target]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is inside this checkout');
    expect(existsSync(target)).toBe(false);
  });

  it('a JSON file with comments is left alone (a rewrite would drop them), exit 2', () => {
    const file = join(scratch(), 'settings.json');
    const before = '{\n  // mine\n  "mcpServers": {}\n}\n';
    writeFileSync(file, before);
    const r = install(['gemini', '--sandbox', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('has comments or trailing commas');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('an unknown host names the closest, exit 2', () => {
    const r = install(['claude']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('one of: claude-desktop, claude-code, cursor, vscode, gemini, codex, opencode');
  });
});

/** The built bin serving HTTP with the sandbox and `token`; resolves with its /mcp URL. */
async function startHttp(token: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(NODE, [ENTRY, '--sandbox', '--http', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', GENPLAT_STATE_DIR: scratch(), GENPLAT_HTTP_TOKEN: token },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /ready on (http:\S+\/mcp)/.exec(stderr);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`http server exited ${code}: ${stderr}`)));
  });
  return { child, url };
}

/** tools/list through the SDK client with exactly `headers`; the error text when the server refuses. */
async function listOver(url: string, headers: Record<string, string>): Promise<string[] | string> {
  const client = new Client({ name: 'install-http', version: '0.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return (await client.listTools()).tools.map((t) => t.name);
  } catch (e) {
    return String(e);
  } finally {
    await client.close().catch(() => undefined);
  }
}

const TOKEN_VAR = 'GENPLAT_HTTP_TOKEN';
interface RemoteCase {
  host: string;
  file: string;
  before: string;
  parse(text: string): Json;
  /** Our entry (and the file's other members we add) for `url`, with `--trust`. */
  after(url: string): Json;
  /**
   * What the host sends, read back from the file by the host's documented rule for its reference
   * (docs/hosts.md "Evidence"): the URL and headers, `vars` being its environment (or a prompt's answers).
   */
  request(doc: Json, vars: Record<string, string>): { url: string; headers: Record<string, string> };
}

const sub = (re: RegExp, vars: Record<string, string>, missing: (m: string) => string) => (v: string) =>
  v.replace(re, (m, name: string) => vars[name] ?? missing(m));
const headersBy = (e: Json, f: (v: string) => string) =>
  Object.fromEntries(Object.entries((e.headers ?? {}) as Record<string, string>).map(([k, v]) => [k, f(v)]));

const REMOTE: RemoteCase[] = [
  {
    host: 'claude-code',
    file: '.claude.json',
    before: JSON.stringify({ numStartups: 3, mcpServers: { other: OTHER } }),
    parse: json,
    after: (url) => ({
      numStartups: 3,
      mcpServers: {
        other: OTHER,
        genplat: { type: 'http', url, headers: { Authorization: `Bearer \${${TOKEN_VAR}}` } },
      },
    }),
    // ${VAR} (and ${VAR:-default}); an unset one is an error at start, so the test leaves it in place.
    request: (d, vars) => {
      const e = at(d, 'mcpServers', 'genplat');
      return {
        url: e.url as string,
        headers: headersBy(
          e,
          sub(/\$\{(\w+)(?::-[^}]*)?\}/g, vars, (m) => m),
        ),
      };
    },
  },
  {
    host: 'cursor',
    file: 'mcp.json',
    before: JSON.stringify({ mcpServers: { other: OTHER } }),
    parse: json,
    after: (url) => ({
      mcpServers: { other: OTHER, genplat: { url, headers: { Authorization: `Bearer \${env:${TOKEN_VAR}}` } } },
    }),
    request: (d, vars) => {
      const e = at(d, 'mcpServers', 'genplat');
      return {
        url: e.url as string,
        headers: headersBy(
          e,
          sub(/\$\{env:(\w+)\}/g, vars, () => ''),
        ),
      };
    },
  },
  {
    host: 'vscode',
    file: 'mcp.json',
    before: JSON.stringify({ servers: { other: OTHER }, inputs: [{ id: 'mine', type: 'promptString' }] }),
    parse: json,
    after: (url) => ({
      servers: {
        other: OTHER,
        genplat: { type: 'http', url, headers: { Authorization: `Bearer \${input:genplat-http-token}` } },
      },
      inputs: [
        { id: 'mine', type: 'promptString' },
        {
          type: 'promptString',
          id: 'genplat-http-token',
          description: `genplat-mcp HTTP bearer token (the server's ${TOKEN_VAR})`,
          password: true,
        },
      ],
    }),
    // ${input:id} is answered by the user through the input `id` declares (a password prompt): the answer is
    // what they would type, the server's token.
    request: (d, vars) => {
      const e = at(d, 'servers', 'genplat');
      const inputs = new Map((d.inputs as Json[]).map((i) => [i.id as string, i]));
      const answer = (m: string, id: string) => {
        const input = inputs.get(id);
        if (input?.type !== 'promptString' || input.password !== true) return m;
        return vars[TOKEN_VAR] ?? m;
      };
      return {
        url: e.url as string,
        headers: headersBy(e, (v) => v.replace(/\$\{input:([\w-]+)\}/g, answer)),
      };
    },
  },
  {
    host: 'gemini',
    file: 'settings.json',
    before: JSON.stringify({ theme: 'Default', mcpServers: { other: OTHER } }),
    parse: json,
    after: (url) => ({
      theme: 'Default',
      mcpServers: {
        other: OTHER,
        genplat: { httpUrl: url, headers: { Authorization: `Bearer \${${TOKEN_VAR}}` }, trust: true },
      },
    }),
    // $VAR or ${VAR} in every string of settings.json; an unset one stays as written.
    request: (d, vars) => {
      const e = at(d, 'mcpServers', 'genplat');
      return {
        url: e.httpUrl as string,
        headers: headersBy(e, (v) =>
          v.replace(/\$(?:(\w+)|\{(\w+)\})/g, (m, a?: string, b?: string) => vars[a ?? b ?? ''] ?? m),
        ),
      };
    },
  },
  {
    host: 'codex',
    file: 'config.toml',
    before: 'model = "o4"\n\n[mcp_servers.other]\ncommand = "/usr/bin/other-server"\nargs = ["--x"]\n',
    parse: readToml,
    after: (url) => ({
      model: 'o4',
      mcp_servers: {
        other: OTHER,
        genplat: { url, bearer_token_env_var: TOKEN_VAR, default_tools_approval_mode: 'approve' },
      },
    }),
    // `bearer_token_env_var` names the variable whose value Codex sends as `Authorization: Bearer <value>`.
    request: (d, vars) => {
      const e = at(d, 'mcp_servers', 'genplat');
      const value = vars[e.bearer_token_env_var as string];
      const headers: Record<string, string> = value ? { Authorization: `Bearer ${value}` } : {};
      return { url: e.url as string, headers };
    },
  },
  {
    host: 'opencode',
    file: 'opencode.json',
    before: JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      mcp: { other: { type: 'local', command: ['x'] } },
    }),
    parse: json,
    after: (url) => ({
      $schema: 'https://opencode.ai/config.json',
      mcp: {
        other: { type: 'local', command: ['x'] },
        genplat: {
          type: 'remote',
          url,
          headers: { Authorization: `Bearer {env:${TOKEN_VAR}}` },
          oauth: false,
          enabled: true,
        },
      },
    }),
    // {env:VAR} anywhere in the file's text, an unset one as ''.
    request: (d, vars) => {
      const e = at(
        json(JSON.stringify(d).replace(/\{env:(\w+)\}/g, (_, n: string) => vars[n] ?? '')),
        'mcp',
        'genplat',
      );
      return { url: e.url as string, headers: (e.headers ?? {}) as Record<string, string> };
    },
  },
];

describe('install <host> --http URL: the remote entry, the token never written', () => {
  const token = 'install-http-token-0123456789abcdef';
  let server: { child: ChildProcess; url: string };
  beforeAll(async () => {
    server = await startHttp(token);
  }, 60_000);
  afterAll(() => {
    server?.child.kill('SIGTERM');
  });

  it.each(REMOTE)(
    '$host: the exact entry beside another server, no token in the file; read as the host does, it reaches the server',
    async (c) => {
      const file = join(scratch(), c.file);
      writeFileSync(file, c.before);
      const r = install([c.host, '--http', server.url, '--trust', '--config', file], { [TOKEN_VAR]: token });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`added "genplat" in ${file}; kept 1 other server(s): other`);
      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain(token);
      expect(`${r.stdout}${r.stderr}`).not.toContain(token);
      const doc = c.parse(text);
      expect(doc).toEqual(c.after(server.url));

      // The host's reading with the token in its environment (or typed at VS Code's prompt) is accepted...
      const sent = c.request(doc, { [TOKEN_VAR]: token });
      expect(sent.url).toBe(server.url);
      const tools = await listOver(sent.url, sent.headers);
      expect(tools).toEqual(expect.arrayContaining(['list_avatars', 'create_talking_video']));
      // ...and without it, the same entry is refused by the server: the reference is what carries the token.
      const bare = c.request(doc, {});
      expect(await listOver(bare.url, bare.headers)).toMatch(/401|Unauthorized/);

      // Installing again (or over a stdio entry of the same name) replaces it in place.
      const again = install([c.host, '--http', server.url, '--trust', '--config', file], { [TOKEN_VAR]: token });
      expect(again.stdout).toContain('replaced "genplat"');
      expect(c.parse(readFileSync(file, 'utf8'))).toEqual(doc);
    },
    60_000,
  );

  it('a stdio entry of the same name is replaced whole (Codex: its env table too, so the key goes)', () => {
    const file = join(scratch(), 'config.toml');
    const key = 'gp_live_was_stdio_0123456789';
    const first = install(['codex', '--config', file], {
      GENPLAT_BASE_URL: 'https://api.example.com',
      GENPLAT_API_KEY: key,
    });
    expect(first.code, first.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain(key);
    const r = install(['codex', '--http', 'https://mcp.example.com/mcp', '--config', file]);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(key);
    expect(readToml(text)).toEqual({
      mcp_servers: { genplat: { url: 'https://mcp.example.com/mcp', bearer_token_env_var: TOKEN_VAR } },
    });
  });

  it('--print shows the entry, writes nothing, never the token; without it set here, says where to set it', () => {
    const home = scratch();
    const r = install(['claude-code', '--http', 'http://127.0.0.1:8787/mcp', '--print'], {
      HOME: home,
      [TOKEN_VAR]: token,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`# Claude Code: merge into ${join(home, '.claude.json')}`);
    expect(r.stdout).toContain(`"Authorization": "Bearer \${${TOKEN_VAR}}"`);
    expect(r.stdout).toContain('Dynamic Client Registration rejected (HTTP 404)');
    expect(r.stdout).not.toContain(token);
    expect(existsSync(join(home, '.claude.json'))).toBe(false);
    const unset = install(['codex', '--http', 'http://127.0.0.1:8787/mcp', '--print']);
    expect(unset.stdout).toContain(
      `${TOKEN_VAR} is not set here: set it to the server's token in the environment Codex starts from.`,
    );
    expect(unset.stdout).toContain('install again with --trust');
  });

  it('claude-desktop: no remote entry exists in its file; the options are explained, exit 2, nothing written', () => {
    const file = join(scratch(), 'claude_desktop_config.json');
    for (const extra of [['--config', file], ['--print']]) {
      const r = install(['claude-desktop', '--http', 'http://127.0.0.1:8787/mcp', ...extra], { [TOKEN_VAR]: token });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        "Claude Desktop's config file has no entry for a remote server, so nothing was written.",
      );
      expect(r.stderr).toContain('genplat-mcp install claude-desktop');
      expect(r.stderr).toContain('does not vet or recommend one');
      expect(r.stdout).toBe('');
      expect(existsSync(file)).toBe(false);
    }
  });

  it.each([
    ['not-a-url', "must be the server's full MCP URL"],
    ['ftp://127.0.0.1/mcp', 'must be an http(s) URL'],
    ['http://mcp.example.com/mcp', 'must be https for mcp.example.com'],
    ['https://user:pw@mcp.example.com/mcp', 'must not carry a user or password'],
  ])('--http %s is refused before anything is written: %s', (url, rule) => {
    const file = join(scratch(), 'mcp.json');
    const r = install(['cursor', '--http', url, '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--http ${rule}`);
    expect(existsSync(file)).toBe(false);
  });

  it('--sandbox, --headless and --node cannot go with --http (they set up a server install would start)', () => {
    const file = join(scratch(), 'mcp.json');
    const r = install(['cursor', '--http', 'http://localhost:8787/mcp', '--sandbox', '--headless', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--sandbox, --headless cannot go with --http');
    expect(existsSync(file)).toBe(false);
  });
});
