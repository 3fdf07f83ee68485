import { describe, expect, it } from 'vitest';
import { loadConfig, parseCli, SANDBOX_WITH_DATABASE } from '../../src/config.js';
import { ConfigurationError } from '../../src/errors.js';

const REAL = { GENPLAT_API_KEY: 'test-key-123456', GENPLAT_BASE_URL: 'https://api.example.com' };
const load = (env: Record<string, string>, argv: string[] = []) => loadConfig(parseCli(argv), env);

describe('GENPLAT_DATABASE_URL', () => {
  it('is undefined by default (SQLite) and kept when it is a postgres URL', () => {
    expect(load(REAL).databaseUrl).toBeUndefined();
    expect(load({ ...REAL, GENPLAT_DATABASE_URL: ' ' }).databaseUrl).toBeUndefined();
    const url = 'postgres://genplat:pw@db.internal:5432/genplat';
    expect(load({ ...REAL, GENPLAT_DATABASE_URL: url }).databaseUrl).toBe(url);
    expect(load({ ...REAL, GENPLAT_DATABASE_URL: 'postgresql://db/genplat' }).databaseUrl).toBe(
      'postgresql://db/genplat',
    );
  });

  it('refuses another scheme without quoting the value (it may hold a password)', () => {
    try {
      load({ ...REAL, GENPLAT_DATABASE_URL: 'mysql://u:s3cret-pw@db/x' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigurationError);
      const text = (err as ConfigurationError).problems.join('\n');
      expect(text).toContain('GENPLAT_DATABASE_URL must be a postgres:// or postgresql:// URL');
      expect(text).not.toContain('s3cret-pw');
    }
  });

  it('is refused by a sandbox server (stdio and --http) with the reason, never silently ignored', () => {
    for (const argv of [['--sandbox'], ['--sandbox', '--http']]) {
      try {
        load({ GENPLAT_DATABASE_URL: 'postgres://u:s3cret-pw@db/genplat' }, argv);
        expect.unreachable(argv.join(' '));
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigurationError);
        const text = (err as ConfigurationError).problems.join('\n');
        expect(text).toBe(SANDBOX_WITH_DATABASE);
        expect(text).toContain('genplat-mcp sim');
        expect(text).not.toContain('s3cret-pw');
      }
    }
    // GENPLAT_SANDBOX=1 is the same switch; an empty value is unset.
    expect(() => load({ GENPLAT_SANDBOX: '1', GENPLAT_DATABASE_URL: 'postgres://db/genplat' })).toThrow(
      ConfigurationError,
    );
    expect(load({ GENPLAT_DATABASE_URL: ' ' }, ['--sandbox']).databaseUrl).toBeUndefined();
    // `audit export --sandbox` reads the sandbox's own store, whatever the fleet's setting.
    expect(load({ GENPLAT_DATABASE_URL: 'postgres://db/genplat' }, ['audit', 'export', '--sandbox']).databaseUrl).toBe(
      undefined,
    );
  });
});

describe('a PostgreSQL URL in logs and doctor', () => {
  it('describes the store without the password, in the userinfo or in the query', async () => {
    const { describeUrl } = await import('../../src/store/postgres.js');
    const { queryCredentials } = await import('../../src/store/index.js');
    const url =
      'postgres://genplat:user-pw@db.internal:5432/genplat?password=query-pw&sslpassword=ssl-pw&sslmode=require';
    const shown = describeUrl(url);
    expect(shown).toContain('db.internal:5432/genplat');
    for (const secret of ['user-pw', 'query-pw', 'ssl-pw']) expect(shown).not.toContain(secret);
    // Registered for redaction too, in case a driver message quotes them.
    expect(queryCredentials(url)).toEqual(['query-pw', 'ssl-pw']);
  });
});
