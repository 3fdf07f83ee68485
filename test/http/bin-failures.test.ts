/**
 * Issue 20 item 5, through the built bin: `--http` refuses a missing token and a taken port with one line and
 * exit 2 (no stack); the 401 says whether a token was missing or refused (never echoing it); `audit export`
 * reads the sandbox store with --sandbox and never creates a store where none is; a server started through
 * npm (`npx --no-install genplat-mcp`) stops when npm's pid is sent SIGTERM, releasing its port.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRY, ensureBuilt, ROOT } from '../helpers/build.js';
import { TOKEN_A } from './helpers.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), 'genplat-bin-fail-'));
  dirs.push(d);
  return d;
};

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.pid) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Starts `command args` and resolves once stderr says "ready on" (with the URL) or the process exits. */
function start(command: string, args: string[], env: Record<string, string>, cwd?: string) {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
  children.push(child);
  let stderr = '';
  /** Everything written to stderr so far (it keeps growing after "ready on"). */
  const log = () => stderr;
  return new Promise<{ child: ChildProcess; url?: string; code?: number | null; stderr: string; log(): string }>(
    (resolve) => {
      child.stderr?.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = /ready on (http:\S+)/.exec(stderr);
        if (m) resolve({ child, url: m[1]!, stderr, log });
      });
      child.on('exit', (code) => resolve({ child, code, stderr, log }));
    },
  );
}
const bin = (args: string[], env: Record<string, string> = {}) =>
  start(process.execPath, [ENTRY, ...args], { PATH: process.env.PATH ?? '', GENPLAT_STATE_DIR: scratch(), ...env });

/** The lines that are not the server's info log: what a person reads as the failure. */
const problems = (stderr: string) =>
  stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('[genplat-mcp] info'));

describe('--http start-up failures: one line, exit 2, no stack', () => {
  it('a missing token', async () => {
    const s = await bin(['--sandbox', '--http', '--port', '0']);
    expect(s.code).toBe(2);
    expect(problems(s.stderr)).toEqual([
      expect.stringMatching(/^genplat-mcp: GENPLAT_HTTP_TOKEN is required with --http/),
    ]);
  });

  it('a port another process holds', async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as AddressInfo).port;
    try {
      const s = await bin(['--sandbox', '--http', '--port', String(port)], { GENPLAT_HTTP_TOKEN: TOKEN_A });
      expect(s.code).toBe(2);
      expect(problems(s.stderr)).toEqual([
        `genplat-mcp: 127.0.0.1:${port} is in use by another process: stop what holds it or choose another with --port / GENPLAT_HTTP_PORT (--host / GENPLAT_HTTP_HOST)`,
      ]);
      expect(s.stderr).not.toMatch(/\n\s+at /);
    } finally {
      holder.close();
    }
  });
});

describe('the 401', () => {
  it('differs for a missing and a refused token, and never echoes the token', async () => {
    const s = await bin(['--sandbox', '--http', '--port', '0'], { GENPLAT_HTTP_TOKEN: TOKEN_A });
    expect(s.url, s.stderr).toBeDefined();
    const post = (headers: Record<string, string>) =>
      fetch(s.url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const none = await post({});
    const wrongToken = 'not-the-token-0123456789abcdef';
    const wrong = await post({ authorization: `Bearer ${wrongToken}` });
    expect([none.status, wrong.status]).toEqual([401, 401]);
    const [a, b] = [await none.text(), await wrong.text()];
    expect(JSON.parse(a).error.message).toBe(
      'Unauthorized: no bearer token; send Authorization: Bearer <GENPLAT_HTTP_TOKEN>',
    );
    expect(JSON.parse(b).error.message).toBe(
      'Unauthorized: this bearer token is not one the server accepts (compare it with GENPLAT_HTTP_TOKEN)',
    );
    expect(b).not.toContain(wrongToken);
    s.child.kill('SIGTERM');
  });
});

describe('audit export', () => {
  const run = (args: string[], state: string) =>
    spawnSync(process.execPath, [ENTRY, 'audit', 'export', ...args], {
      env: { PATH: process.env.PATH ?? '', GENPLAT_STATE_DIR: state },
      encoding: 'utf8',
      timeout: 30_000,
    });

  it('with no store says where it looked, exits 2 and creates nothing', () => {
    const state = join(scratch(), 'none');
    const r = run([], state);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(
      `genplat-mcp audit: no store at ${join(state, 'genplat.db')} (check --state-dir / GENPLAT_STATE_DIR, or GENPLAT_DATABASE_URL for a PostgreSQL store)`,
    );
    expect(r.stdout).toBe('');
    expect(existsSync(state)).toBe(false);
  });

  it('--sandbox reads the sandbox store a --sandbox server wrote; without it, the hint names --sandbox', async () => {
    const state = scratch();
    // A --sandbox server creates its store in <state>/sandbox; stopping it right away is enough.
    const s = await start(process.execPath, [ENTRY, '--sandbox', '--http', '--port', '0'], {
      PATH: process.env.PATH ?? '',
      GENPLAT_STATE_DIR: state,
      GENPLAT_HTTP_TOKEN: TOKEN_A,
    });
    expect(s.url, s.stderr).toBeDefined();
    s.child.kill('SIGTERM');
    await new Promise((r) => s.child.once('exit', r));
    const plain = run([], state);
    expect(plain.status).toBe(2);
    expect(plain.stderr).toContain(`(the sandbox's store is ${join(state, 'sandbox', 'genplat.db')}: add --sandbox)`);
    expect(existsSync(join(state, 'genplat.db'))).toBe(false);
    const sandbox = run(['--sandbox'], state);
    expect(sandbox.status, sandbox.stderr).toBe(0);
    expect(sandbox.stdout.split('\n')[0]).toMatch(/^ledger_id,admitted_at,owner,owner_name,owner_email,tool/);
    expect(sandbox.stderr).toContain(`from SQLite ${join(state, 'sandbox', 'genplat.db')}`);
  });
});

describe('started through npx', () => {
  /** True while something accepts connections on 127.0.0.1:port. */
  const listening = (port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });

  it('SIGTERM to the npx pid stops the server and frees its port', async () => {
    const state = scratch();
    mkdirSync(state, { recursive: true });
    const s = await start(
      // `npx genplat-mcp` would run a copy from npm's npx cache (whatever version a pack test left there), not
      // this checkout's build: run the checkout's bin through npx, which keeps npm → sh -c → node.
      'npx',
      ['--no-install', '--', 'node', 'dist/src/index.js', '--sandbox', '--http', '--port', '0'],
      {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? state,
        GENPLAT_STATE_DIR: state,
        GENPLAT_HTTP_TOKEN: TOKEN_A,
      },
      ROOT,
    );
    expect(s.url, s.stderr).toBeDefined();
    const port = Number(new URL(s.url!).port);
    expect(await listening(port)).toBe(true);
    s.child.kill('SIGTERM'); // npm's pid: the signal never reaches the server itself
    // The server looks for its parent every second; 20 s leaves room for a loaded 2-core box.
    const deadline = Date.now() + 20_000;
    while ((await listening(port)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await listening(port), s.log()).toBe(false);
    expect(s.log()).toContain('the npm process that started this server exited');
  }, 60_000);
});
