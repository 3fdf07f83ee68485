/**
 * Claude Code (`@anthropic-ai/claude-code`, a native binary) headless: `claude -p PROMPT`.
 * Model: ANTHROPIC_BASE_URL + any ANTHROPIC_API_KEY → the stand-in speaks Anthropic Messages (SSE).
 * Server: user scope (`~/.claude.json` `mcpServers`, what `claude mcp add --scope user` writes: no project
 * approval prompt; over stdio written by `genplat-mcp install claude-code`); tool calls approved by `permissions.allow: ["mcp__genplat"]` in `~/.claude/settings.json`
 * (root cannot use --dangerously-skip-permissions). Tools are offered as `mcp__genplat__<tool>`, deferred: names
 * only, their schemas fetched through ToolSearch (the stand-in does, lib/model.mjs).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { genplatInstall } from '../lib/procs.mjs';

export const host = {
  id: 'claude-code',
  name: 'Claude Code',
  pkg: '@anthropic-ai/claude-code',
  bin: '.bin/claude',
  transports: ['stdio', 'http'],
  toolName: (base) => `mcp__genplat__${base}`,

  /** The suite's part of `~/.claude.json` (onboarding done); the model comes from the environment. */
  writeModelConfig(home) {
    writeFileSync(join(home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }, null, 2));
  },

  /**
   * Adds our server at user scope and allows its tools. stdio: `genplat-mcp install claude-code --config
   * ~/.claude.json --trust --headless` writes the entry; HTTP: written here (the installer writes stdio entries
   * only). The allow rule in `~/.claude/settings.json` is the suite's: the installer does not write it.
   */
  installServer(home, server) {
    const file = join(home, '.claude.json');
    let out;
    if (server.http) {
      const config = JSON.parse(readFileSync(file, 'utf8'));
      config.mcpServers = {
        ...config.mcpServers,
        genplat: { type: 'http', url: server.http.url, headers: server.http.headers },
      };
      writeFileSync(file, JSON.stringify(config, null, 2));
    } else out = genplatInstall('claude-code', file, server.stdio);
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(
      join(home, '.claude/settings.json'),
      JSON.stringify({ permissions: { allow: ['mcp__genplat'] } }, null, 2),
    );
    return out;
  },

  command({ prompt, model }) {
    return {
      args: ['-p', prompt, '--output-format', 'text', '--model', 'claude-sonnet-4-5'],
      env: {
        ANTHROPIC_BASE_URL: model.origin,
        ANTHROPIC_API_KEY: 'sk-ant-stand-in',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
      },
    };
  },
};
