/**
 * The client's MCP roots as folders, for local file paths (issue 22 item 2; src/files/confine.ts). Asked at
 * each paid call that names a local file (roots can change: `notifications/roots/list_changed`), only on stdio
 * (over HTTP a path names the server's disk, never the caller's) and only on a 2025-era connection that
 * declared `roots`: on the 2026-07-28 era roots/list is an input request of the call (MRTR), not wired yet, so
 * those clients get GENPLAT_INPUT_DIRS. Non-`file:` roots are ignored. Any failure = no roots (the fallback).
 */
import { fileURLToPath } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/server';
import { clientCapabilities, isModern } from './era.js';

/** A 2025 client that never answers roots/list must not hold a paid call: 5 s is far above a local answer. */
const ROOTS_TIMEOUT_MS = 5_000;

export function rootsOf(server: McpServer): () => Promise<string[] | undefined> {
  return async () => {
    if (isModern(server) || !clientCapabilities(server)?.roots) return undefined;
    const { roots } = await server.server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS });
    return roots.filter((r) => r.uri.startsWith('file://')).map((r) => fileURLToPath(r.uri));
  };
}
