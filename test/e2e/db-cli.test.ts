/**
 * `genplat-mcp db migrate` / `db grant ROLE` through the built bin on a real PostgreSQL with two fresh roles
 * (test/store/pg-role-pair.ts), and the server's start as a runtime role on a schema it may not migrate: exit 2
 * with the command to run, no stack. What the grants prevent: test/store/pg-roles.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeGrants } from '../../src/store/pg-roles.js';
import { ENTRY, ensureBuilt } from '../helpers/build.js';
import { createRolePair, type RolePair, SCHEMA } from '../store/pg-role-pair.js';

let pair: RolePair;

function run(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [ENTRY, ...args], {
    env: { PATH: process.env.PATH ?? '', GENPLAT_LOG_LEVEL: 'error', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The stdio server's start: it opens the store before it answers anything (stdin closed at once). */
const serverAs = (url: string) =>
  run([], { GENPLAT_DATABASE_URL: url, GENPLAT_API_KEY: 'k', GENPLAT_BASE_URL: 'http://127.0.0.1:9/api' });

beforeAll(async () => {
  await ensureBuilt();
  pair = await createRolePair();
}, 180_000);
afterAll(() => pair?.drop());

describe('genplat-mcp db', () => {
  it('the runtime role on an empty database: the server stops naming `genplat-mcp db migrate`', () => {
    const r = serverAs(pair.rtUrl);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/has no genplat-mcp schema yet.*Run `genplat-mcp db migrate` with GENPLAT_DATABASE_URL/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });

  it('db migrate refuses the runtime role; as the migration role it creates the schema', () => {
    const refused = run(['db', 'migrate'], { GENPLAT_DATABASE_URL: pair.rtUrl });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`genplat-mcp db: role "${pair.runtime}" does not own the genplat_* tables`);
    const r = run(['db', 'migrate'], { GENPLAT_DATABASE_URL: pair.migUrl });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`schema 0 → \\d+ \\(as role "${pair.migrator}"\\)`));
    expect(r.stdout).toContain('genplat-mcp db grant <runtime role>');
    expect(run(['db', 'migrate'], { GENPLAT_DATABASE_URL: pair.migUrl }).stdout).toMatch(/is current/);
  });

  it('db grant ROLE prints the statements it ran; the server then starts as the runtime role', () => {
    const r = run(['db', 'grant', pair.runtime], { GENPLAT_DATABASE_URL: pair.migUrl });
    expect(r.code, r.stderr).toBe(0);
    for (const sql of runtimeGrants(pair.runtime, SCHEMA)) expect(r.stdout).toContain(`${sql};\n`);
    // stdin is closed at once: the server opened the store, connected stdio and ended on "stdin closed".
    const s = serverAs(pair.rtUrl);
    expect(s.stderr).not.toMatch(/db migrate|fatal/);
    expect(s.code).toBe(0);
  });

  it('usage errors exit 2: a missing URL, a wrong sub-command', () => {
    const noUrl = run(['db', 'migrate'], {});
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('set GENPLAT_DATABASE_URL to the migration role');
    const bad = run(['db', 'upgrade'], { GENPLAT_DATABASE_URL: pair.migUrl });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('use "genplat-mcp db migrate" or "genplat-mcp db grant <runtime role>"');
  });
});
