import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ASSUMED_VENDORS,
  type CliArgs,
  defaultStateDir,
  loadConfig,
  parseCli,
  TOOLSETS,
  VENDOR_LETTERS,
} from '../../src/config.js';
import { ConfigurationError } from '../../src/errors.js';

const KEY = 'gp_live_SECRET_key_0123456789abcdef';
const BASE = 'https://api.genplat.example/v2';
const REAL = { GENPLAT_API_KEY: KEY, GENPLAT_BASE_URL: BASE };

const cli = (argv: string[] = []): CliArgs => parseCli(argv);
const load = (env: NodeJS.ProcessEnv, argv: string[] = []) => loadConfig(cli(argv), env);

function problems(env: NodeJS.ProcessEnv, argv: string[] = []): string[] {
  try {
    load(env, argv);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigurationError);
    const e = err as ConfigurationError;
    expect(e.message).toBe(e.problems.join('\n'));
    return e.problems;
  }
  throw new Error('expected a ConfigurationError');
}

describe('defaults', () => {
  it('fills every setting for a real deployment', () => {
    const c = load({ ...REAL, XDG_DATA_HOME: '/xdg' });
    expect(c).toMatchObject({
      apiKey: KEY,
      baseUrl: BASE,
      sandbox: false,
      vendors: ASSUMED_VENDORS,
      confirm: { mode: 'always' },
      maxCreditsPerCall: 2000,
      maxCreditsPerDay: 10000,
      toolsets: [...TOOLSETS],
      readOnly: false,
      webhookAllowlist: [],
      elicitation: 'auto',
      elicitationSkipClients: ['claude-ai'],
      elicitationTimeoutMs: 40_000,
      http: { host: '127.0.0.1', port: 8787, token: undefined, allowedOrigins: [] },
      publicUrl: undefined,
      logLevel: 'info',
    });
    expect(c.stateDir).toBe(defaultStateDir({ XDG_DATA_HOME: '/xdg' }));
  });

  it.runIf(process.platform === 'linux')('puts state under XDG_DATA_HOME, else ~/.local/share', () => {
    expect(defaultStateDir({ XDG_DATA_HOME: '/xdg' })).toBe('/xdg/genplat-mcp');
    expect(defaultStateDir({})).toMatch(/\.local\/share\/genplat-mcp$/);
  });

  it('trims the base URL trailing slash and keeps its prefix', () => {
    expect(load({ ...REAL, GENPLAT_BASE_URL: 'https://api.genplat.example/v2/' }).baseUrl).toBe(BASE);
  });
});

describe('sandbox', () => {
  it('needs no key or base URL, ignores them, and keeps its state in a sandbox subdir', () => {
    for (const c of [
      load({ GENPLAT_STATE_DIR: '/state' }, ['--sandbox']),
      load({ GENPLAT_STATE_DIR: '/state', GENPLAT_SANDBOX: '1' }),
      load({ GENPLAT_STATE_DIR: '/state', GENPLAT_SANDBOX: 'true', ...REAL, GENPLAT_BASE_URL: 'not a url' }),
    ]) {
      expect(c.sandbox).toBe(true);
      expect(c.apiKey).toBeUndefined();
      expect(c.baseUrl).toBeUndefined();
      expect(c.stateDir).toBe(join('/state', 'sandbox'));
    }
    expect(load({ ...REAL, GENPLAT_STATE_DIR: '/state' }).stateDir).toBe('/state');
  });

  it('fills unknown vendor letters with placeholders, keeping overrides', () => {
    const c = load({ GENPLAT_VENDORS: 'B=bravo' }, ['--sandbox']);
    for (const letter of VENDOR_LETTERS) expect(c.vendors[letter]).toBeTruthy();
    expect(c.vendors).toMatchObject({ ...ASSUMED_VENDORS, B: 'bravo', E: 'vendore', M: 'vendorm' });
  });

  it('treats an empty key placeholder as unset', () => {
    expect(load({ GENPLAT_API_KEY: '' }, ['--sandbox']).sandbox).toBe(true);
    expect(problems({ GENPLAT_API_KEY: '  ', GENPLAT_BASE_URL: BASE })).toEqual([
      'GENPLAT_API_KEY is required (or run with --sandbox to use the simulator)',
    ]);
  });

  it('does not require a key for the standalone simulator command', () => {
    expect(load({}, ['sim']).apiKey).toBeUndefined();
  });
});

describe('each variable', () => {
  it('parses the numbers, switches and lists', () => {
    const c = load({
      ...REAL,
      GENPLAT_MAX_CREDITS_PER_CALL: '500',
      GENPLAT_MAX_CREDITS_PER_DAY: '600',
      GENPLAT_STATE_DIR: '/var/lib/genplat',
      GENPLAT_READ_ONLY: 'true',
      GENPLAT_WEBHOOK_ALLOWLIST: ' Hooks.Example.com , cb.example.org.,hooks.example.com, bücher.example',
      GENPLAT_ELICITATION: 'off',
      GENPLAT_ELICITATION_SKIP_CLIENTS: 'Claude-AI, other',
      GENPLAT_ELICITATION_TIMEOUT_MS: '20000',
      GENPLAT_HTTP_TOKEN: 'a-very-long-bearer-token',
      GENPLAT_HTTP_HOST: '0.0.0.0',
      GENPLAT_HTTP_PORT: '9000',
      GENPLAT_HTTP_ALLOWED_ORIGINS: 'https://app.example.com',
      GENPLAT_PUBLIC_URL: 'https://mcp.example.com/',
      GENPLAT_LOG_LEVEL: 'debug',
    });
    expect(c).toMatchObject({
      maxCreditsPerCall: 500,
      maxCreditsPerDay: 600,
      stateDir: '/var/lib/genplat',
      readOnly: true,
      webhookAllowlist: ['hooks.example.com', 'cb.example.org', 'xn--bcher-kva.example'],
      elicitation: 'off',
      elicitationSkipClients: ['claude-ai', 'other'],
      elicitationTimeoutMs: 20000,
      http: {
        host: '0.0.0.0',
        port: 9000,
        token: 'a-very-long-bearer-token',
        allowedOrigins: ['https://app.example.com'],
      },
      publicUrl: 'https://mcp.example.com',
      logLevel: 'debug',
    });
    expect(load({ ...REAL, GENPLAT_ELICITATION_SKIP_CLIENTS: '' }).elicitationSkipClients).toEqual([]);
  });

  it('lets flags win over variables', () => {
    const c = load({ ...REAL, GENPLAT_HTTP_HOST: '0.0.0.0', GENPLAT_HTTP_PORT: '9000', GENPLAT_STATE_DIR: '/env' }, [
      '--http',
      '--host',
      '127.0.0.2',
      '--port',
      '9100',
      '--state-dir',
      '/flag',
      '--read-only',
      '--toolsets',
      'video',
    ]);
    expect(c).toMatchObject({ http: { host: '127.0.0.2', port: 9100 }, stateDir: '/flag', readOnly: true });
    expect(c.toolsets).toEqual(['video', 'jobs']);
  });

  it.each([
    ['GENPLAT_MAX_CREDITS_PER_CALL', '12.5', /GENPLAT_MAX_CREDITS_PER_CALL must be a whole number/],
    ['GENPLAT_MAX_CREDITS_PER_DAY', '-1', /GENPLAT_MAX_CREDITS_PER_DAY must be a whole number/],
    ['GENPLAT_ELICITATION_TIMEOUT_MS', '500', /GENPLAT_ELICITATION_TIMEOUT_MS must be at least 1000/],
    ['GENPLAT_HTTP_PORT', '70000', /GENPLAT_HTTP_PORT must be at most 65535/],
    ['GENPLAT_HTTP_TOKEN', 'short', /GENPLAT_HTTP_TOKEN must be at least 16 characters/],
    ['GENPLAT_READ_ONLY', 'yes', /^GENPLAT_READ_ONLY: /],
    ['GENPLAT_SANDBOX', 'on', /^GENPLAT_SANDBOX: /],
    ['GENPLAT_ELICITATION', 'always', /^GENPLAT_ELICITATION: /],
    ['GENPLAT_LOG_LEVEL', 'verbose', /^GENPLAT_LOG_LEVEL: /],
    ['GENPLAT_PUBLIC_URL', 'http://mcp.example.com', /GENPLAT_PUBLIC_URL must be an https URL/],
    ['GENPLAT_PUBLIC_URL', 'nope', /GENPLAT_PUBLIC_URL is not a valid URL/],
    ['GENPLAT_WEBHOOK_ALLOWLIST', 'https://hooks.example.com/x', /GENPLAT_WEBHOOK_ALLOWLIST: .* bare host name/],
    ['GENPLAT_WEBHOOK_ALLOWLIST', 'hooks.example.com:8443', /bare host name/],
  ])('reports %s=%j, naming the variable', (name, value, rule) => {
    const found = problems({ ...REAL, [name]: value });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(rule);
    expect(found[0]).toContain(name);
  });

  it('rejects a bad --port', () => {
    for (const port of ['', 'abc', '1e3', '65536', '-1']) {
      expect(() => parseCli([`--port=${port}`]), port).toThrow(ConfigurationError);
    }
    expect(parseCli(['--port', '0']).port).toBe(0);
  });

  it('rejects an unknown command', () => {
    expect(() => parseCli(['serv'])).toThrow(/unknown command "serv"/);
    expect(parseCli(['doctor']).command).toBe('doctor');
  });
});

describe('GENPLAT_CONFIRM', () => {
  it.each([
    [undefined, { mode: 'always' }],
    ['always', { mode: 'always' }],
    ['never', { mode: 'never' }],
    ['above:250', { mode: 'above', credits: 250 }],
    ['above:0', { mode: 'above', credits: 0 }],
    [' Above:300 ', { mode: 'above', credits: 300 }],
    ['NEVER', { mode: 'never' }],
  ])('%j', (value, policy) => {
    expect(load({ ...REAL, GENPLAT_CONFIRM: value }).confirm).toEqual(policy);
  });

  it.each(['sometimes', 'above:', 'above:-5', 'above:1.5', 'below:10'])('rejects %j', (value) => {
    const found = problems({ ...REAL, GENPLAT_CONFIRM: value });
    expect(found).toEqual([
      `GENPLAT_CONFIRM must be "always", "never" or "above:N" (N in displayed credits), got "${value}"`,
    ]);
  });
});

describe('ceilings', () => {
  it('allows per call up to per day, and refuses per call above per day', () => {
    expect(load({ ...REAL, GENPLAT_MAX_CREDITS_PER_CALL: '10000' }).maxCreditsPerCall).toBe(10000);
    expect(problems({ ...REAL, GENPLAT_MAX_CREDITS_PER_CALL: '20000' })).toEqual([
      'GENPLAT_MAX_CREDITS_PER_CALL must not exceed GENPLAT_MAX_CREDITS_PER_DAY',
    ]);
    expect(load({ ...REAL, GENPLAT_MAX_CREDITS_PER_CALL: '0', GENPLAT_MAX_CREDITS_PER_DAY: '0' })).toMatchObject({
      maxCreditsPerCall: 0,
      maxCreditsPerDay: 0,
    });
  });
});

describe('toolsets', () => {
  it('always includes jobs, accepts all, trims, lower-cases and de-duplicates', () => {
    expect(load({ ...REAL, GENPLAT_TOOLSETS: 'video, avatar' }).toolsets).toEqual(['video', 'avatar', 'jobs']);
    expect(load({ ...REAL, GENPLAT_TOOLSETS: 'jobs' }).toolsets).toEqual(['jobs']);
    expect(load({ ...REAL, GENPLAT_TOOLSETS: 'Video,video' }).toolsets).toEqual(['video', 'jobs']);
    expect(load({ ...REAL, GENPLAT_TOOLSETS: 'all' }).toolsets).toEqual([...TOOLSETS]);
    expect(load({ ...REAL, GENPLAT_TOOLSETS: 'video,all' }).toolsets).toEqual([...TOOLSETS]);
    expect(load({ ...REAL, GENPLAT_TOOLSETS: ' ' }).toolsets).toEqual([...TOOLSETS]);
  });

  it('names the unknown toolset and where it came from', () => {
    expect(problems({ ...REAL, GENPLAT_TOOLSETS: 'video,movies' })).toEqual([
      `GENPLAT_TOOLSETS: unknown toolset "movies"; known: ${TOOLSETS.join(', ')}, all`,
    ]);
    expect(problems(REAL, ['--toolsets', 'movies'])[0]).toMatch(/^--toolsets: unknown toolset "movies"/);
  });
});

describe('GENPLAT_VENDORS', () => {
  it('overrides assumed names per letter, case-insensitive letters', () => {
    const c = load({ ...REAL, GENPLAT_VENDORS: 'c=seed-v2, B=bravo.ai ,, F = veo3' });
    expect(c.vendors).toEqual({ ...ASSUMED_VENDORS, B: 'bravo.ai', C: 'seed-v2', F: 'veo3' });
    // Outside the sandbox an unknown letter stays unset, so only its feature fails.
    expect(c.vendors.E).toBeUndefined();
  });

  it('reports each bad item', () => {
    expect(problems({ ...REAL, GENPLAT_VENDORS: 'C=seedance,Z=zeta,C=Upper,seedance' })).toEqual([
      'GENPLAT_VENDORS: "Z=zeta" must look like C=seedance (letter A-M, lower-case name)',
      'GENPLAT_VENDORS: "C=Upper" must look like C=seedance (letter A-M, lower-case name)',
      'GENPLAT_VENDORS: "seedance" must look like C=seedance (letter A-M, lower-case name)',
    ]);
  });
});

describe('GENPLAT_BASE_URL', () => {
  it.each([
    'https://api.genplat.example/v2',
    'http://127.0.0.1:8080/prefix',
    'http://localhost:8080/prefix',
    'http://[::1]:8080/prefix',
  ])('accepts %s', (url) => {
    expect(load({ ...REAL, GENPLAT_BASE_URL: url }).baseUrl).toBe(url);
  });

  it.each([
    ['http://api.genplat.example/v2', /must use https/],
    ['http://10.0.0.5/v2', /must use https/],
    ['ftp://api.genplat.example/', /must use https/],
    ['https://user:pw@api.genplat.example/v2', /must not contain credentials/],
    ['https://api.genplat.example/v2?key=1', /must not contain credentials, a query/],
    ['https://api.genplat.example/v2#x', /a fragment/],
    ['api.genplat.example', /not a valid URL/],
  ])('rejects %s', (url, rule) => {
    const found = problems({ ...REAL, GENPLAT_BASE_URL: url });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(rule);
  });

  it('has no default: both key and base URL are required outside the sandbox', () => {
    expect(problems({})).toEqual([
      'GENPLAT_API_KEY is required (or run with --sandbox to use the simulator)',
      'GENPLAT_BASE_URL is required: the platform base URL including its prefix (no default, so the key never goes to a guessed host)',
    ]);
    expect(problems({ GENPLAT_API_KEY: KEY })).toHaveLength(1);
  });
});

describe('problem reporting', () => {
  it('lists one line per problem, all at once', () => {
    const found = problems({
      GENPLAT_API_KEY: KEY,
      GENPLAT_BASE_URL: 'http://api.genplat.example',
      GENPLAT_CONFIRM: 'sometimes',
      GENPLAT_MAX_CREDITS_PER_CALL: 'lots',
      GENPLAT_READ_ONLY: 'maybe',
      GENPLAT_HTTP_PORT: '99999',
      GENPLAT_VENDORS: 'Q=quux',
      GENPLAT_TOOLSETS: 'movies',
      GENPLAT_WEBHOOK_ALLOWLIST: 'https://x.example.com',
    });
    expect(found).toHaveLength(8);
    for (const name of [
      'GENPLAT_BASE_URL',
      'GENPLAT_CONFIRM',
      'GENPLAT_MAX_CREDITS_PER_CALL',
      'GENPLAT_READ_ONLY',
      'GENPLAT_HTTP_PORT',
      'GENPLAT_VENDORS',
      'GENPLAT_TOOLSETS',
      'GENPLAT_WEBHOOK_ALLOWLIST',
    ]) {
      expect(
        found.filter((p) => p.includes(name)),
        name,
      ).toHaveLength(1);
    }
    expect(found.every((p) => !p.includes('\n'))).toBe(true);
  });

  it('never includes the API key value, even when it is pasted into another variable', () => {
    const found = problems({
      GENPLAT_API_KEY: KEY,
      GENPLAT_BASE_URL: `http://api.genplat.example/?key=${KEY}`,
      GENPLAT_CONFIRM: KEY,
      GENPLAT_VENDORS: `C=${KEY}`,
      GENPLAT_TOOLSETS: KEY,
      GENPLAT_WEBHOOK_ALLOWLIST: KEY,
      GENPLAT_HTTP_TOKEN: 'short',
      GENPLAT_PUBLIC_URL: KEY,
    });
    expect(found.length).toBeGreaterThanOrEqual(6);
    for (const p of found) expect(p).not.toContain(KEY);
    expect(found.join('\n')).toContain('[redacted]');
  });
});

describe('GENPLAT_PRICE_TABLE', () => {
  it('reads inline JSON and a JSON file; unset is an empty table', async () => {
    expect(load(REAL).priceTable).toEqual({});
    const inline = '{"animate_gesture": 150, "run_model:flux-2-pro-edit": 80, "create_family_video:seedance-2.5": 400}';
    expect(load({ ...REAL, GENPLAT_PRICE_TABLE: inline }).priceTable).toEqual({
      animate_gesture: 150,
      'run_model:flux-2-pro-edit': 80,
      'create_family_video:seedance-2.5': 400,
    });
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'genplat-price-')), 'prices.json');
    writeFileSync(file, '{"animate_gesture": 120}');
    expect(load({ ...REAL, GENPLAT_PRICE_TABLE: file }).priceTable).toEqual({ animate_gesture: 120 });
  });

  it.each([
    ['{"animate_gesture": -1}', /key "animate_gesture" must map to a non-negative number/],
    ['{"animate_gesture": "150"}', /key "animate_gesture" must map to a non-negative number/],
    ['{"Animate Gesture": 150}', /key "Animate Gesture" must be a tool name/],
    ['{"animate_gesture": 150,', /not valid JSON/],
    ['[150]', /must be a JSON object/],
    ['/nonexistent/prices.json', /cannot read the file/],
  ])('%s is a config error naming the problem', (value, message) => {
    const found = problems({ ...REAL, GENPLAT_PRICE_TABLE: value });
    expect(found.join('\n')).toMatch(/GENPLAT_PRICE_TABLE/);
    expect(found.join('\n')).toMatch(message);
  });
});
