/**
 * The built bin's command line (issue 13, item 5): --help/-h and --version for the server and each command
 * exit 0 with the text on stdout, even with no configuration at all; an unknown flag exits 2 naming the
 * closest known one, with nothing on stdout. Parse-level cases: test/unit/cli.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENTRY, ensureBuilt, ROOT } from '../helpers/build.js';

const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Runs the bin with an empty environment (no key, no base URL): help must not need them. */
function run(args: string[]) {
  const r = spawnSync(process.execPath, [ENTRY, ...args], {
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => ensureBuilt(), 180_000);

describe('genplat-mcp --help / --version', () => {
  it.each([
    [[] as string[], 'genplat-mcp [options]', ['--sandbox', '--reset-sandbox', '--http', 'GENPLAT_API_KEY']],
    [['sim'], 'genplat-mcp sim [options]', ['--port', '--reset', '--state-dir', 'GENPLAT_STATE_DIR']],
    [['doctor'], 'genplat-mcp doctor [options]', ['--sandbox', 'GENPLAT_BASE_URL']],
    [['install'], 'genplat-mcp install <host> [options]', ['--print', '--node PATH', '--config PATH', '--trust']],
  ])('%j --help and -h print the usage, flags and variables on stdout and exit 0', (prefix, usage, mentions) => {
    for (const flag of ['--help', '-h']) {
      const r = run([...prefix, flag]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(usage);
      for (const m of mentions) expect(r.stdout).toContain(m);
      expect(r.stderr).toBe('');
    }
  });

  it.each([[[]], [['sim']], [['doctor']]])('%j --version prints the package version and exits 0', (prefix) => {
    const r = run([...(prefix as string[]), '--version']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
  });

  it.each([
    [['--sandbx'], 'did you mean --sandbox?'],
    [['sim', '--rest'], 'did you mean --reset?'],
    [['doctor', '--sandobx'], 'did you mean --sandbox?'],
    [['--reset'], 'did you mean --reset-sandbox?'],
  ])('%j exits 2 naming the closest flag on stderr, nothing on stdout', (args, hint) => {
    const r = run(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(hint);
    expect(r.stdout).toBe('');
  });

  it('an unknown command exits 2 too', () => {
    const r = run(['simm']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('did you mean "sim"?');
  });
});
