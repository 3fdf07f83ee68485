/**
 * `install`'s pure parts: Codex's TOML table swapped in place (everything else byte for byte), the refusal of a
 * table defined another way, each host's user config path per OS, and the JSONC reader.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stripJsonc } from '../../src/install/cli.js';
import { HOST_DEFS, HOSTS } from '../../src/install/hosts.js';
import { replaceTomlTable, tomlTable } from '../../src/install/toml.js';

const ours = tomlTable(['mcp_servers', 'genplat'], { command: '/n', args: ['/b'], env: { A: 'x' } });

describe('replaceTomlTable', () => {
  it('writes the table and its env sub-table', () => {
    expect(ours).toBe('[mcp_servers.genplat]\ncommand = "/n"\nargs = ["/b"]\n\n[mcp_servers.genplat.env]\nA = "x"\n');
  });

  it('replaces the old table and its sub-tables in place, keeping every other line', () => {
    const before = [
      '# top comment',
      'model = "o4"',
      '',
      '[mcp_servers.genplat]',
      'command = "old"',
      '',
      '[mcp_servers.genplat.env]',
      'OLD = "1"',
      '',
      '[mcp_servers.other] # keep me',
      'command = "x"',
      '',
    ].join('\n');
    expect(replaceTomlTable(before, ['mcp_servers', 'genplat'], ours)).toBe(
      [
        '# top comment',
        'model = "o4"',
        '',
        ours.trimEnd(),
        '',
        '[mcp_servers.other] # keep me',
        'command = "x"',
        '',
      ].join('\n'),
    );
  });

  it('appends to a file without it, and to an empty file', () => {
    expect(replaceTomlTable('model = "o4"\n', ['mcp_servers', 'genplat'], ours)).toBe(`model = "o4"\n\n${ours}`);
    expect(replaceTomlTable('', ['mcp_servers', 'genplat'], ours)).toBe(ours);
  });

  it('does not touch a server whose name only starts with ours', () => {
    const before = '[mcp_servers.genplat-sandbox]\ncommand = "s"\n';
    expect(replaceTomlTable(before, ['mcp_servers', 'genplat'], ours)).toBe(`${before}\n${ours}`);
  });

  it.each(['mcp_servers.genplat.command = "x"\n', '[mcp_servers]\ngenplat = { command = "x" }\n'])(
    'refuses a table defined inline or with dotted keys: %j',
    (before) => {
      expect(() => replaceTomlTable(before, ['mcp_servers', 'genplat'], ours)).toThrow(/inline or with dotted keys/);
    },
  );
});

describe('host config paths', () => {
  const env = { HOME: '/h', APPDATA: 'C:\\Users\\u\\AppData\\Roaming' };
  it('Linux', () => {
    expect(Object.fromEntries(HOSTS.map((h) => [h, HOST_DEFS[h].configPath(env, 'linux')]))).toEqual({
      'claude-desktop': join('/h', '.config', 'Claude', 'claude_desktop_config.json'),
      'claude-code': join('/h', '.claude.json'),
      cursor: join('/h', '.cursor', 'mcp.json'),
      vscode: join('/h', '.config', 'Code', 'User', 'mcp.json'),
      gemini: join('/h', '.gemini', 'settings.json'),
      codex: join('/h', '.codex', 'config.toml'),
      opencode: join('/h', '.config', 'opencode', 'opencode.json'),
    });
  });
  it('macOS desktop apps use Application Support; overrides are honoured', () => {
    expect(HOST_DEFS['claude-desktop'].configPath(env, 'darwin')).toBe(
      join('/h', 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json'),
    );
    expect(HOST_DEFS.vscode.configPath(env, 'win32')).toBe(join(env.APPDATA, 'Code', 'User', 'mcp.json'));
    expect(HOST_DEFS.codex.configPath({ ...env, CODEX_HOME: '/c' }, 'linux')).toBe(join('/c', 'config.toml'));
    expect(HOST_DEFS['claude-code'].configPath({ ...env, CLAUDE_CONFIG_DIR: '/cc' }, 'linux')).toBe(
      join('/cc', '.claude.json'),
    );
  });
});

describe('stripJsonc', () => {
  it('drops comments and trailing commas, never inside strings', () => {
    const text = '{\n  // a\n  "u": "http://x/*y*/", /* b */\n  "l": [1, 2,],\n}';
    expect(JSON.parse(stripJsonc(text))).toEqual({ u: 'http://x/*y*/', l: [1, 2] });
  });
});
