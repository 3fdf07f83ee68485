/**
 * opencode (a native binary; pinned as `opencode-linux-x64`, the platform package `opencode-ai` would run here:
 * see the note in hosts/package.json) headless: `opencode run PROMPT`.
 * Model: a provider `standin` (`@ai-sdk/openai-compatible`, loopback `baseURL`) in
 * `$XDG_CONFIG_HOME/opencode/opencode.json` → the stand-in speaks Chat Completions (SSE).
 * Server: `mcp.genplat` (`{type: "local", command: [...], environment}` or `{type: "remote", url, headers}`);
 * tool calls allowed by `permission` (MCP tools are named `genplat_<tool>`).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { genplatInstall } from '../lib/procs.mjs';

export const host = {
  id: 'opencode',
  name: 'opencode',
  pkg: 'opencode-linux-x64',
  bin: 'opencode-linux-x64/bin/opencode',
  transports: ['stdio', 'http'],
  toolName: (base) => `genplat_${base}`,

  /** The stand-in model as opencode's provider: the suite's part of `opencode.json`, written first. */
  writeModelConfig(home, modelOrigin) {
    const dir = join(home, '.config/opencode');
    mkdirSync(dir, { recursive: true });
    const config = {
      $schema: 'https://opencode.ai/config.json',
      autoupdate: false,
      share: 'disabled',
      model: 'standin/stand-in',
      small_model: 'standin/stand-in',
      provider: {
        standin: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Stand-in',
          options: { baseURL: `${modelOrigin}/v1`, apiKey: 'stand-in-key' },
          models: { 'stand-in': { name: 'Stand-in', tool_call: true } },
        },
      },
    };
    writeFileSync(join(dir, 'opencode.json'), JSON.stringify(config, null, 2));
  },

  /**
   * Adds our server and the permission for its tools to the config under `home`: `genplat-mcp install opencode
   * --config opencode.json --trust --headless` (stdio) or `… --http URL --trust` (HTTP: `{type: "remote", url,
   * headers, oauth: false}` with `Bearer {env:GENPLAT_HTTP_TOKEN}`) writes `mcp.genplat`. `permission` is the suite's: the installer does not write it.
   */
  installServer(home, server) {
    const file = join(home, '.config/opencode/opencode.json');
    const out = genplatInstall('opencode', file, server);
    const config = JSON.parse(readFileSync(file, 'utf8'));
    config.permission = { ...config.permission, 'genplat_*': 'allow' };
    writeFileSync(file, JSON.stringify(config, null, 2));
    return out;
  },

  command({ prompt, home }) {
    return {
      args: ['run', '--model', 'standin/stand-in', prompt],
      env: {
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_DATA_HOME: join(home, '.local/share'),
        XDG_CACHE_HOME: join(home, '.cache'),
        XDG_STATE_HOME: join(home, '.local/state'),
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
        OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      },
    };
  },
};
