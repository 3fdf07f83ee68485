/**
 * Gemini CLI (`@google/gemini-cli`, Node) headless: `gemini -p PROMPT`.
 * Model: GOOGLE_GEMINI_BASE_URL + any GEMINI_API_KEY → the stand-in speaks Gemini streamGenerateContent (SSE).
 * Server: `~/.gemini/settings.json` `mcpServers.genplat` with `"trust": true` (in `-p` no MCP tool is offered to
 * the model otherwise, and trust also skips the per-call confirmation); the work folder is trusted in
 * `~/.gemini/trustedFolders.json` (servers are disabled in an untrusted folder). Tools: `mcp_genplat_<tool>`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { genplatInstall } from '../lib/procs.mjs';

export const host = {
  id: 'gemini',
  name: 'Gemini CLI',
  pkg: '@google/gemini-cli',
  bin: '.bin/gemini',
  transports: ['stdio', 'http'],
  toolName: (base) => `mcp_genplat_${base}`,

  /** The suite's part of `~/.gemini/settings.json` (API-key auth, no update checks), written first. */
  writeModelConfig(home) {
    mkdirSync(join(home, '.gemini'), { recursive: true });
    const settings = {
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: true } },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    };
    writeFileSync(join(home, '.gemini/settings.json'), JSON.stringify(settings, null, 2));
  },

  /**
   * Adds our server, trusted, to the settings under `home`, and trusts the project folder: `genplat-mcp install
   * gemini --config ~/.gemini/settings.json --trust --headless` (stdio) or `… --http URL --trust` (HTTP:
   * `{httpUrl, headers}` with `Bearer ${GENPLAT_HTTP_TOKEN}`, which Gemini expands on load) writes the entry,
   * with `trust: true`. `trustedFolders.json` is the suite's: the
   * installer does not write it (it tells the user to trust the folder).
   */
  installServer(home, server, { cwd }) {
    const file = join(home, '.gemini/settings.json');
    const out = genplatInstall('gemini', file, server);
    writeFileSync(join(home, '.gemini/trustedFolders.json'), JSON.stringify({ [cwd]: 'TRUST_FOLDER' }, null, 2));
    return out;
  },

  command({ prompt, model }) {
    return {
      args: ['-p', prompt, '--model', 'gemini-2.5-pro'],
      env: { GOOGLE_GEMINI_BASE_URL: model.origin, GEMINI_API_KEY: 'stand-in-key' },
    };
  },
};
