/**
 * Codex (`@openai/codex`, a native binary inside the package) headless: `codex exec PROMPT`.
 * Model: a `[model_providers.standin]` with a loopback `base_url` in `$CODEX_HOME/config.toml`, Responses API
 * (SSE). Server: `[mcp_servers.genplat]` (stdio: command/args/env; HTTP: `url` + `bearer_token_env_var`);
 * `codex exec` refuses MCP tool calls until `default_tools_approval_mode = "approve"` is set for the server.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const toml = (v) => JSON.stringify(v); // TOML basic strings and arrays of them read like JSON ones
const table = (o) =>
  `{ ${Object.entries(o)
    .map(([k, v]) => `${toml(k)} = ${toml(v)}`)
    .join(', ')} }`;
export const TOKEN_VAR = 'GENPLAT_HOSTS_TOKEN';

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
   * Adds our server to the config under `home`: what `genplat-mcp install codex --config <home>` will do (being
   * written separately; replace this function with that command when it lands).
   */
  installServer(home, server) {
    const lines = ['[mcp_servers.genplat]'];
    if (server.http) {
      lines.push(`url = ${toml(server.http.url)}`, `bearer_token_env_var = ${toml(TOKEN_VAR)}`);
    } else {
      lines.push(
        `command = ${toml(server.stdio.command)}`,
        `args = ${toml(server.stdio.args)}`,
        `env = ${table(server.stdio.env)}`,
      );
    }
    lines.push('default_tools_approval_mode = "approve"', 'tool_timeout_sec = 60', '');
    appendFileSync(join(home, '.codex/config.toml'), lines.join('\n'));
  },

  command({ prompt, home, server }) {
    return {
      args: ['exec', '--skip-git-repo-check', prompt],
      env: {
        CODEX_HOME: join(home, '.codex'),
        STANDIN_API_KEY: 'stand-in-key',
        ...(server.http ? { [TOKEN_VAR]: server.http.token } : {}),
      },
    };
  },
};
