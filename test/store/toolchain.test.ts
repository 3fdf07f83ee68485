/**
 * Node >= 22.13 (node:sqlite without a flag): the bin refuses an older Node with one clear line, the dev
 * toolchain really runs on Node 22 (the `node` devDependency), and loading node:sqlite keeps stderr clean.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeVersionProblem, telemetryNodeProblem } from '../../src/node-version.js';
import { ENTRY, ensureBuilt, ROOT } from '../helpers/build.js';

const SQLITE_MODULE = join(ROOT, 'dist', 'src', 'store', 'sqlite-module.js');

/** The first `node` on the system PATH (outside node_modules) older than 22.13, e.g. the box's Node 20. */
function oldSystemNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node', '/bin/node']) {
    try {
      const v = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
      if (nodeVersionProblem(v)) return candidate;
    } catch {
      // not there
    }
  }
  return undefined;
}

beforeAll(() => ensureBuilt([ENTRY, SQLITE_MODULE]), 180_000);

describe('Node.js version', () => {
  it('accepts 22.13 and newer, refuses older with the version found', () => {
    for (const ok of ['v22.13.0', 'v22.23.3', 'v23.0.0', 'v24.1.0']) expect(nodeVersionProblem(ok)).toBeUndefined();
    for (const old of ['v20.20.2', 'v22.12.0', 'v18.0.0']) {
      expect(nodeVersionProblem(old)).toMatch(new RegExp(`^genplat-mcp needs Node.js >= 22\\.13 \\(found ${old}\\): `));
    }
  });

  it('telemetry (OpenTelemetry SDK 3.x) needs 22.15: an older Node.js is refused naming the setting that turned it on', () => {
    for (const ok of ['v22.15.0', 'v22.23.3', 'v24.1.0']) expect(telemetryNodeProblem(ok, 'X')).toBeUndefined();
    for (const old of ['v22.13.1', 'v22.14.9', 'v20.20.2']) {
      expect(telemetryNodeProblem(old, 'GENPLAT_METRICS_TOKEN')).toBe(
        `GENPLAT_METRICS_TOKEN: OpenTelemetry (traces and metrics) needs Node.js >= 22.15 (found ${old}); upgrade Node.js, or turn telemetry off (unset it, or OTEL_SDK_DISABLED=true)`,
      );
    }
    // The SDK's own declaration, so this floor follows the pinned packages.
    const declared = JSON.parse(
      readFileSync(join(ROOT, 'node_modules', '@opentelemetry', 'sdk-metrics', 'package.json'), 'utf8'),
    ) as { engines: { node: string } };
    expect(declared.engines.node).toBe('>=22.15.0');
  });

  it('runs the tests themselves on Node >= 22.13 (the pinned `node` devDependency)', () => {
    expect(nodeVersionProblem(process.version)).toBeUndefined();
  });

  const old = oldSystemNode();
  it.skipIf(!old)(`the built bin exits 1 with one clear line on an old Node (${old ?? 'none installed'})`, () => {
    const r = spawnSync(old as string, [ENTRY, '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^genplat-mcp needs Node\.js >= 22\.13 \(found v\d+\.\d+\.\d+\): [^\n]+\n$/);
  });
});

describe('node:sqlite', () => {
  it('loads without the ExperimentalWarning, and other warnings still reach stderr', () => {
    const script = `const m = await import(${JSON.stringify(SQLITE_MODULE)}); const { DatabaseSync } = m.loadSqlite();
      new DatabaseSync(':memory:').close(); process.emitWarning('still here');`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(/ExperimentalWarning|SQLite is an experimental/);
    expect(r.stderr).toMatch(/Warning: still here/);
  });
});
