#!/usr/bin/env node
/**
 * `npm run bundle`: builds the Claude Desktop MCP Bundle (.mcpb). Plain .mjs (not compiled) because it only
 * orchestrates: stage the built server + manifest, install production dependencies from the lock file
 * into the stage, then `mcpb pack`. Output: genplat-mcp-<version>.mcpb in the repo root (git-ignored).
 * Expects `npm run build` to have run (the npm script does it first).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'));
const fail = (msg) => {
  console.error(`bundle: ${msg}`);
  process.exit(1);
};

if (manifest.version !== pkg.version) fail(`manifest.json version ${manifest.version} ≠ package.json ${pkg.version}`);
if (!existsSync(join(root, manifest.server.entry_point)))
  fail(`${manifest.server.entry_point} missing: run npm run build`);

const stage = mkdtempSync(join(tmpdir(), 'genplat-bundle-'));
try {
  // Exactly what the npm package ships (package.json `files`), plus the manifest and lock file.
  for (const entry of [...pkg.files, 'package.json', 'package-lock.json', 'manifest.json', 'LICENSE']) {
    const from = join(root, entry);
    if (existsSync(from)) cpSync(from, join(stage, entry), { recursive: true });
  }
  // `install`, not `ci`: the lock lacks other platforms' optional biome binaries (the registry mirror has none),
  // which `npm ci` rejects; `install` still takes every locked version. Dev dependencies are omitted.
  // npm_config_* from the calling `npm run` (e.g. --omit settings of a CI) must not leak into this install.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
  execFileSync('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: stage,
    stdio: ['ignore', 'ignore', 'inherit'],
    env,
  });
  const out = join(root, `${pkg.name}-${pkg.version}.mcpb`);
  rmSync(out, { force: true });
  const mcpb = join(root, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
  execFileSync(process.execPath, [mcpb, 'pack', stage, out], { stdio: ['ignore', 'ignore', 'inherit'] });
  console.error(`bundle: wrote ${out} (${(statSync(out).size / 1024 / 1024).toFixed(1)} MiB)`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
