import { ALL_TOOLS } from '../../tools/index.js';

/**
 * The tools a server lists without an approval policy: every tool but the `approvals` toolset (decide_approval has
 * nothing to decide without GENPLAT_APPROVALS: src/tool-visibility.ts).
 */
export const LISTED_WITHOUT_POLICY = ALL_TOOLS.filter((t) => t.toolset !== 'approvals');

/** Those a client is listed on one transport: a tool only where it works (src/tool-visibility.ts). */
export const listedWithoutPolicy = (transport: 'stdio' | 'http') =>
  LISTED_WITHOUT_POLICY.filter((t) => t.only === undefined || t.only === transport);
