/**
 * The bin's `--http` branch end to end (dist build): starts in the sandbox, serves a bearer-authenticated
 * client, refuses to start without a token, and warns loudly when bound beyond loopback.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRY, ensureBuilt } from '../helpers/build.js';
import { listedWithoutPolicy } from '../helpers/listed-tools.js';
import { eraOptions, TOKEN_A, testEra } from './helpers.js';

let state: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  ensureBuilt();
  state = mkdtempSync(join(tmpdir(), 'genplat-http-bin-'));
  // A rebuild of dist/ (under a lock shared with other test files) can take a minute on a busy box.
}, 180_000);
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(state, { recursive: true, force: true });
});

/** Starts the bin; resolves with its URL once it logs "ready on", or with its exit code and stderr. */
function start(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [ENTRY, ...args], {
    env: { PATH: process.env.PATH ?? '', GENPLAT_STATE_DIR: state, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  return new Promise<{ child: ChildProcess; url?: string; code?: number | null; stderr: string; stdout: string }>(
    (resolve) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = /ready on (http:\S+)/.exec(stderr);
        if (m) resolve({ child, url: m[1]!, stderr, stdout });
      });
      child.on('exit', (code) => resolve({ child, code, stderr, stdout }));
    },
  );
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('genplat-mcp --http', () => {
  it('serves tools to a client with the bearer token (sandbox), and exits 0 on SIGTERM', async () => {
    const s = await start(['--sandbox', '--http', '--port', '0'], { GENPLAT_HTTP_TOKEN: TOKEN_A });
    expect(s.url, s.stderr).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: 'bin-http', version: '0' }, eraOptions(testEra()));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(s.url!), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN_A}` } },
      }),
    );
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(listedWithoutPolicy('http').length); // the App-only Confirm button is listed only to MCP Apps clients
    const r = await client.callTool({ name: 'list_avatars', arguments: {} });
    expect(r.isError).toBeFalsy();
    await client.close();
    expect(await stop(s.child)).toBe(0);
    expect(s.stderr).not.toContain(TOKEN_A);
    expect(s.stdout).toBe('');
  });

  it('refuses to start without GENPLAT_HTTP_TOKEN', async () => {
    const s = await start(['--sandbox', '--http', '--port', '0'], {});
    expect(s.url).toBeUndefined();
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/GENPLAT_HTTP_TOKEN is required with --http/);
  });

  it('warns loudly when bound beyond loopback', async () => {
    const s = await start(['--sandbox', '--http', '--host', '0.0.0.0', '--port', '0'], {
      GENPLAT_HTTP_TOKEN: TOKEN_A,
    });
    expect(s.url).toBeDefined();
    expect(s.stderr).toMatch(/WARNING: genplat-mcp is listening on 0\.0\.0\.0/);
    expect(s.stderr).toMatch(/GENPLAT_HTTP_ALLOWED_HOSTS/);
    await stop(s.child);
  });
});
