/**
 * What users install: `npm pack` → the tarball holds the built server and docs and nothing from development;
 * installed into a scratch folder (`npm install <tgz>`, from the registry like a user's `npx`), its bin
 * answers `tools/list` over stdio in the sandbox and its `doctor --sandbox` exits 0.
 * Needs the npm registry (dependencies of the tarball). Takes ~20-40 s, mostly that install.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRY, ensureBuilt, ROOT } from '../helpers/build.js';
import { listedWithoutPolicy } from '../helpers/listed-tools.js';

const run = promisify(execFile);

interface PackFile {
  path: string;
  mode: number;
}

let scratch: string;
let tgz: string;
let files: PackFile[];

/** npm's own environment (npm_config_* from `npm test`) must not steer the nested npm calls. */
const cleanEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));

beforeAll(async () => {
  ensureBuilt();
  expect(existsSync(ENTRY), 'dist/src/index.js (npm run build)').toBe(true);
  scratch = mkdtempSync(join(tmpdir(), 'genplat-pack-'));
  // --ignore-scripts: dist is built above; prepack's build is for `npm publish` from a clean tree.
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], {
    cwd: ROOT,
    env: cleanEnv(),
  });
  const [info] = JSON.parse(stdout) as [{ filename: string; files: PackFile[] }];
  tgz = join(scratch, info.filename);
  files = info.files;
  writeFileSync(join(scratch, 'package.json'), '{"name":"scratch","private":true}\n');
  // --prefer-offline: the dependencies come from npm's cache when it has them (the same versions the lock file
  // installed), so this also passes with no network at all (an `ip netns` with nothing in it), and faster.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tgz], { cwd: scratch, env: cleanEnv() });
}, 240_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('npm package', () => {
  it('ships the built server, manifest and docs, and no development files', () => {
    const paths = files.map((f) => f.path);
    for (const p of ['package.json', 'README.md', 'manifest.json', 'server.json', 'dist/src/index.js']) {
      expect(paths, p).toContain(p);
    }
    expect(paths.some((p) => p.startsWith('dist/tools/'))).toBe(true);
    expect(paths.some((p) => p.startsWith('dist/resources/'))).toBe(true);
    // The sandbox is a product feature: the simulator ships.
    expect(paths.some((p) => p.startsWith('dist/src/sim/'))).toBe(true);
    const dev = paths.filter(
      (p) =>
        /^(src|tools|resources|test|scripts|\.ci|node_modules|conformance-results)\//.test(p) ||
        /^dist\/(scripts|test)\//.test(p) ||
        /\.(ts|map|tgz|mcpb)$/.test(p) ||
        /^(tsconfig.*|biome|vitest\.config\..*|conformance-baseline\.yml|package-lock\.json)$/.test(p),
    );
    expect(dev).toEqual([]);
  });

  it('has a bin with a node shebang that is executable once installed', () => {
    const installed = join(scratch, 'node_modules', 'genplat-mcp', 'dist', 'src', 'index.js');
    expect(readFileSync(installed, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const bin = realpathSync(join(scratch, 'node_modules', '.bin', 'genplat-mcp'));
    expect(bin).toBe(realpathSync(installed));
    expect(statSync(bin).mode & 0o111).not.toBe(0);
  });

  it('`npx genplat-mcp --sandbox` answers tools/list over stdio', async () => {
    const state = mkdtempSync(join(tmpdir(), 'genplat-pack-state-'));
    const transport = new StdioClientTransport({
      command: 'npx',
      args: ['--no-install', 'genplat-mcp', '--sandbox'],
      cwd: scratch,
      env: { ...cleanEnv(), GENPLAT_STATE_DIR: state } as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'pack-e2e', version: '0.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_avatars', 'create_talking_video']));
      expect(tools).toHaveLength(listedWithoutPolicy('stdio').length); // the App-only Confirm button is listed only to MCP Apps clients
    } finally {
      await client.close();
      rmSync(state, { recursive: true, force: true });
    }
  }, 60_000);

  it('`npx genplat-mcp doctor --sandbox` passes', async () => {
    const state = mkdtempSync(join(tmpdir(), 'genplat-pack-state-'));
    try {
      const { stdout } = await run('npx', ['--no-install', 'genplat-mcp', 'doctor', '--sandbox'], {
        cwd: scratch,
        env: { ...cleanEnv(), GENPLAT_STATE_DIR: state },
      });
      expect(stdout).toContain('All checks passed.');
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  }, 60_000);
});
