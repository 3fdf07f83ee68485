/**
 * The command line (issue 13, item 5), at the parse function: per-command flags, "did you mean" for unknown
 * flags and commands, and help texts that list exactly the flags each command takes and the variables of the
 * config reference. The built bin's exit codes and streams: test/e2e/cli.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { helpText, packageVersion } from '../../src/cli-help.js';
import { CLI_FLAGS, type CliFlag, COMMANDS, flagsOf, loadConfig, parseCli } from '../../src/config.js';
import { CLI_DOCS, CONFIG_DOCS } from '../../src/config-docs.js';
import { closest } from '../../src/did-you-mean.js';
import { ConfigurationError } from '../../src/errors.js';

const problem = (argv: string[]) => {
  try {
    parseCli(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigurationError);
    return (err as ConfigurationError).problems.join('\n');
  }
  throw new Error(`parseCli(${JSON.stringify(argv)}) accepted it`);
};

describe('parseCli', () => {
  it('reads --help, -h and --version for every command', () => {
    for (const command of COMMANDS) {
      const prefix = command === 'serve' ? [] : [command];
      expect(parseCli([...prefix, '--help'])).toMatchObject({ command, help: true });
      expect(parseCli([...prefix, '-h'])).toMatchObject({ command, help: true });
      expect(parseCli([...prefix, '--version'])).toMatchObject({ command, version: true });
    }
  });

  it('reads the sandbox flags: --reset-sandbox (server), --reset (sim)', () => {
    expect(parseCli(['--sandbox', '--reset-sandbox'])).toMatchObject({ sandbox: true, resetSandbox: true });
    expect(parseCli(['sim', '--reset', '--port', '0'])).toMatchObject({ command: 'sim', reset: true, port: 0 });
    expect(parseCli(['sim', '--state-dir', '/tmp/x']).stateDir).toBe('/tmp/x');
  });

  it.each([
    [['--sandbx'], '--sandbox'],
    [['--sand'], '--sandbox'],
    [['--readonly'], '--read-only'],
    [['--read_only'], '--read-only'],
    [['--stateDir', 'x'], '--state-dir'],
    [['--toolset', 'video'], '--toolsets'],
    [['--reset'], '--reset-sandbox'],
    [['--hepl'], '--help'],
    [['sim', '--rest'], '--reset'],
    [['sim', '--prot', '1'], '--port'],
    [['doctor', '--sandobx'], '--sandbox'],
  ])('%j names the closest known flag: %s', (argv, guess) => {
    const text = problem(argv);
    expect(text).toContain(`unknown option ${argv.find((a) => a.startsWith('-'))}`);
    expect(text).toContain(`did you mean ${guess}?`);
    expect(text).toMatch(/--help` for its options/);
  });

  it('an unknown flag with nothing close gets no guess, only the help to read', () => {
    const text = problem(['--frobnicate']);
    expect(text).not.toContain('did you mean');
    expect(text).toContain('`genplat-mcp --help`');
  });

  it('a flag of another command says whose it is, and is refused where it means nothing', () => {
    expect(problem(['sim', '--sandbox'])).toContain('it is an option of `genplat-mcp`, `genplat-mcp doctor`');
    expect(problem(['--reset'])).toContain('it is an option of `genplat-mcp sim`');
    expect(problem(['doctor', '--reset-sandbox'])).toContain('unknown option --reset-sandbox for `genplat-mcp doctor`');
  });

  it('an unknown command names the closest one', () => {
    expect(problem(['simm'])).toContain('did you mean "sim"?');
    expect(problem(['docter'])).toContain('did you mean "doctor"?');
    expect(problem(['help'])).toContain('did you mean --help?');
    expect(problem(['deploy'])).not.toContain('did you mean');
  });

  it('--http is the server switch, and takes the URL of a running server after install <host>', () => {
    expect(parseCli(['--http'])).toMatchObject({ command: 'serve', http: true });
    const url = 'http://127.0.0.1:8787/mcp';
    expect(parseCli(['install', 'codex', '--http', url])).toMatchObject({
      command: 'install',
      http: false,
      install: { host: 'codex', http: url },
    });
    expect(parseCli(['install', 'codex', `--http=${url}`]).install?.http).toBe(url);
    expect(problem(['install', 'codex', '--http', 'http://10.0.0.5:8787/mcp'])).toContain(
      '--http must be https for 10.0.0.5',
    );
    expect(problem(['install', 'codex', '--http', url, '--node', '/usr/bin/node'])).toContain(
      '--node cannot go with --http',
    );
    expect(helpText('install')).toMatch(/--http URL\s/);
    expect(helpText('serve')).not.toMatch(/--http URL/);
  });

  it('--reset-sandbox without --sandbox is a configuration problem', () => {
    expect(() =>
      loadConfig(parseCli(['--reset-sandbox']), { GENPLAT_API_KEY: 'k', GENPLAT_BASE_URL: 'https://x.example/api' }),
    ).toThrow(/--reset-sandbox empties the sandbox: use it with --sandbox/);
    const c = loadConfig(parseCli(['--sandbox', '--reset-sandbox', '--state-dir', '/tmp/s']), {});
    expect(c).toMatchObject({ resetSandbox: true, stateDir: '/tmp/s/sandbox', sandboxDir: '/tmp/s/sandbox' });
  });
});

describe('closest', () => {
  it('takes one typo in a short word and two in a longer one, no more', () => {
    expect(closest('hepl', ['help', 'http'])).toBe('help');
    expect(closest('htp', ['help', 'http'])).toBe('http');
    expect(closest('xyzw', ['help', 'http'])).toBeUndefined();
    expect(closest('sandobx', ['sandbox'])).toBe('sandbox');
    expect(closest('toolz', ['toolsets'])).toBeUndefined();
  });
});

describe('help texts', () => {
  it('every flag a command takes is listed, with a documented meaning', () => {
    for (const command of COMMANDS) {
      const text = helpText(command);
      for (const flag of flagsOf(command)) {
        expect(text, `${command} --${flag}`).toContain(`--${flag}`);
        const documented =
          CLI_DOCS.some((d) => d.flag === `--${flag}` && d.commands.includes(command)) ||
          CONFIG_DOCS.some((d) => d.flag === `--${flag}`);
        expect(documented, `--${flag} of ${command} has no row in src/config-docs.ts`).toBe(true);
      }
      // And nothing it does not take.
      for (const flag of Object.keys(CLI_FLAGS) as CliFlag[]) {
        if (!flagsOf(command).includes(flag))
          expect(text, `${command} --${flag}`).not.toMatch(new RegExp(`--${flag}\\b(?!-)`));
      }
    }
  });

  it('the server and doctor list every variable of the config reference; sim only its state dir', () => {
    for (const command of ['serve', 'doctor'] as const) {
      const text = helpText(command);
      for (const d of CONFIG_DOCS.filter((x) => x.env)) expect(text, `${command} ${d.env}`).toContain(d.env);
    }
    const sim = helpText('sim');
    expect(sim).toContain('GENPLAT_STATE_DIR');
    expect(sim).not.toContain('GENPLAT_API_KEY');
  });

  it('starts with the name and the package version, and has no Markdown backticks', () => {
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
    for (const command of COMMANDS) {
      const text = helpText(command);
      expect(text.split('\n')[0]).toBe(`genplat-mcp ${packageVersion()}`);
      expect(text).not.toContain('`');
    }
  });
});
