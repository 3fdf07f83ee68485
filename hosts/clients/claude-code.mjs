/**
 * Claude Code (`@anthropic-ai/claude-code`, a native binary) headless: `claude -p PROMPT`.
 * Model: ANTHROPIC_BASE_URL + any ANTHROPIC_API_KEY → the stand-in speaks Anthropic Messages (SSE).
 * Server: user scope (`~/.claude.json` `mcpServers`, what `claude mcp add --scope user` writes: no project
 * approval prompt; written by `genplat-mcp install claude-code [--http URL]`); tool calls approved by `permissions.allow: ["mcp__genplat"]` in `~/.claude/settings.json`
 * (root cannot use --dangerously-skip-permissions). Tools are offered as `mcp__genplat__<tool>`, deferred: names
 * only, their schemas fetched through ToolSearch (the stand-in does, lib/model.mjs).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
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
   * Adds our server at user scope and allows its tools: `genplat-mcp install claude-code --config ~/.claude.json
   * --trust --headless` (stdio) or `… --http URL --trust` (HTTP: `{type: "http", url, headers}` with
   * `Bearer ${GENPLAT_HTTP_TOKEN}`, expanded by Claude Code from its environment) writes the entry. The allow rule in `~/.claude/settings.json` is the suite's: the installer does not write it.
   */
  installServer(home, server) {
    const file = join(home, '.claude.json');
    const out = genplatInstall('claude-code', file, server);
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
