/**
 * OpenClaw (npm `openclaw`, pinned in chat-clients/openclaw/package.json; runs on the Node 24 pinned in
 * chat-clients/package.json) headless: `openclaw agent exec --model standin/stand-in --json PROMPT`, OpenClaw's
 * own embedded agent loop with no Gateway, isolated temporary state, the config under `$HOME/.openclaw/`.
 * Model: a custom provider `standin` (`api: "openai-completions"`, loopback `baseUrl`) in `models.providers` →
 * the stand-in speaks Chat Completions (SSE). `tools.toolSearch: false` gives the model every tool's schema
 * directly (the default, Tool Search, hides MCP tools behind `tool_search` / `tool_describe` / `tool_call`).
 * Server: `openclaw mcp set genplat '{url, transport: "streamable-http", headers: {Authorization: "Bearer
 * ${GENPLAT_HTTP_TOKEN}"}}'` (OpenClaw's own command; the `${VAR}` is substituted from its environment at run
 * time). MCP tools are offered as `genplat__<tool>`; OpenClaw runs them without an approval prompt.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CLI = join(import.meta.dirname, '../openclaw/node_modules/openclaw/openclaw.mjs');

export const client = {
  id: 'openclaw',
  name: 'OpenClaw',
  /** package folder (own package.json + lock) and package name under it */
  dir: 'openclaw',
  pkg: 'openclaw',
  toolName: (base) => `genplat__${base}`,

  /** The stand-in model as OpenClaw's provider, and direct tool schemas: the suite's part of the config. */
  writeModelConfig(home, modelOrigin) {
    const dir = join(home, '.openclaw');
    mkdirSync(dir, { recursive: true });
    const config = {
      models: {
        mode: 'merge',
        providers: {
          standin: {
            baseUrl: `${modelOrigin}/v1`,
            apiKey: 'stand-in-key',
            api: 'openai-completions',
            models: [
              {
                id: 'stand-in',
                name: 'Stand-in',
                reasoning: false,
                input: ['text'],
                cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
                contextWindow: 128000,
                maxTokens: 8192,
              },
            ],
          },
        },
      },
      agents: { defaults: { model: { primary: 'standin/stand-in' } } },
      tools: { toolSearch: false },
    };
    writeFileSync(join(dir, 'openclaw.json'), JSON.stringify(config, null, 2));
  },

  /**
   * Our server added by OpenClaw's own CLI, as its docs tell a user: `openclaw mcp set genplat '<json>'`. The
   * token is in the command's environment (as a user who has it set) but the entry holds only `${GENPLAT_HTTP_TOKEN}`
   * (run.mjs checks no file under HOME holds the token). Throws with OpenClaw's output when it refuses.
   */
  installServer(home, server, { node, env }) {
    const entry = {
      url: server.url,
      transport: 'streamable-http',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a reference OpenClaw substitutes from its environment
      headers: { Authorization: 'Bearer ${GENPLAT_HTTP_TOKEN}' },
    };
    const r = spawnSync(node, [CLI, 'mcp', 'set', 'genplat', JSON.stringify(entry)], {
      encoding: 'utf8',
      env,
      cwd: home,
      timeout: 240_000,
    });
    if (r.status !== 0)
      throw new Error(`openclaw mcp set exited ${r.status}: ${`${r.stdout}${r.stderr}`.trim() || r.error}`);
    const saved = JSON.parse(readFileSync(join(home, '.openclaw/openclaw.json'), 'utf8')).mcp?.servers?.genplat;
    if (saved?.url !== server.url) throw new Error(`openclaw mcp set did not save the entry: ${JSON.stringify(saved)}`);
    return r.stdout.trim();
  },

  command({ prompt }) {
    return {
      args: [CLI, 'agent', 'exec', '--model', 'standin/stand-in', '--json', '--timeout', '240', prompt],
      env: { OPENCLAW_NO_AUTO_UPDATE: '1' },
    };
  },

  /** `agent exec --json` prints one envelope on stdout: `{ok, status, final, toolSummary, …}`. */
  readOutput(stdout) {
    const i = stdout.indexOf('{');
    try {
      return i >= 0 ? JSON.parse(stdout.slice(i)) : null;
    } catch {
      return null;
    }
  },
};
