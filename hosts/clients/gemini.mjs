/**
 * Gemini CLI (`@google/gemini-cli`, Node) headless: `gemini -p PROMPT`.
 * Model: GOOGLE_GEMINI_BASE_URL + any GEMINI_API_KEY → the stand-in speaks Gemini streamGenerateContent (SSE).
 * Server: `~/.gemini/settings.json` `mcpServers.genplat` with `"trust": true` (in `-p` no MCP tool is offered to
 * the model otherwise, and trust also skips the per-call confirmation); the work folder is trusted in
 * `~/.gemini/trustedFolders.json` (servers are disabled in an untrusted folder).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const host = {
  id: 'gemini',
  name: 'Gemini CLI',
  pkg: '@google/gemini-cli',
  bin: '.bin/gemini',
  transports: ['stdio', 'http'],
  toolName: (base) => `mcp_genplat_${base}`,

  /** Stand-in for `genplat-mcp install gemini --config <home>` (being written separately). */
  writeConfig(home, server, { cwd }) {
    const entry = server.http
      ? { httpUrl: server.http.url, headers: server.http.headers, trust: true }
      : { command: server.stdio.command, args: server.stdio.args, env: server.stdio.env, trust: true };
    mkdirSync(join(home, '.gemini'), { recursive: true });
    writeFileSync(
      join(home, '.gemini/settings.json'),
      JSON.stringify(
        {
          mcpServers: { genplat: entry },
          security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: true } },
          privacy: { usageStatisticsEnabled: false },
          general: { disableAutoUpdate: true, disableUpdateNag: true },
        },
        null,
        2,
      ),
    );
    writeFileSync(join(home, '.gemini/trustedFolders.json'), JSON.stringify({ [cwd]: 'TRUST_FOLDER' }, null, 2));
  },

  command({ prompt, model }) {
    return {
      args: ['-p', prompt, '--model', 'gemini-2.5-pro'],
      env: { GOOGLE_GEMINI_BASE_URL: model.origin, GEMINI_API_KEY: 'stand-in-key' },
    };
  },
};
