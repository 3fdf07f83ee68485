/**
 * Codex (`@openai/codex`, a native binary inside the package) headless: `codex exec PROMPT`.
 * Model: a `[model_providers.standin]` with a loopback `base_url` in `$CODEX_HOME/config.toml`, Responses API
 * (SSE). Server: `[mcp_servers.genplat]` (stdio: command/args/env; HTTP: `url` + `bearer_token_env_var`);
 * `codex exec` refuses MCP tool calls until `default_tools_approval_mode = "approve"` is set for the server.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { genplatInstall } from '../lib/procs.mjs';

const toml = (v) => JSON.stringify(v); // TOML basic strings and arrays of them read like JSON ones

export const host = {
  id: 'codex',
  name: 'Codex',
  pkg: '@openai/codex',
  bin: '.bin/codex',
  transports: ['stdio', 'http'],
  toolName: (base) => `mcp__genplat__${base}`,

  /** The stand-in model as Codex's provider: the suite's part of `config.toml`, written first. */
  writeModelConfig(home, modelOrigin) {
    mkdirSync(join(home, '.codex'), { recursive: true });
    const lines = [
      'model = "stand-in"',
      'model_provider = "standin"',
      '',
      '[model_providers.standin]',
      'name = "stand-in"',
      `base_url = ${toml(`${modelOrigin}/v1`)}`,
      'env_key = "STANDIN_API_KEY"',
      'wire_api = "responses"',
      '',
    ];
    writeFileSync(join(home, '.codex/config.toml'), lines.join('\n'));
  },

  /**
   * Adds our server to the config under `home`: `genplat-mcp install codex --config config.toml --trust
   * --headless` (stdio) or `… --http URL --trust` (HTTP: `url` + `bearer_token_env_var = "GENPLAT_HTTP_TOKEN"`)
   * writes `[mcp_servers.genplat]` (with `default_tools_approval_mode = "approve"`), then the suite's
   * `tool_timeout_sec` goes into that table.
   */
  installServer(home, server) {
    const file = join(home, '.codex/config.toml');
    const header = '[mcp_servers.genplat]';
    const extra = 'tool_timeout_sec = 60';
    const out = genplatInstall('codex', file, server);
    const text = readFileSync(file, 'utf8');
    const at = text.indexOf(`${header}\n`);
    if (at < 0) throw new Error(`no ${header} in ${file} after genplat-mcp install:\n${text}`);
    const end = at + header.length + 1;
    writeFileSync(file, `${text.slice(0, end)}${extra}\n${text.slice(end)}`);
    return out;
  },

  command({ prompt, home }) {
    return {
      args: ['exec', '--skip-git-repo-check', prompt],
      env: { CODEX_HOME: join(home, '.codex'), STANDIN_API_KEY: 'stand-in-key' },
    };
  },
};
