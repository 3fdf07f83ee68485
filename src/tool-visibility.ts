/**
 * Which tools a configuration exposes: the chosen toolsets; read-only mode hides every billable tool. Its own
 * small module because two callers decide from it: the runtime (which specs to register) and the bundled bin's
 * start-up (which prebuilt tools/list to answer with, from the build-time summaries, before any tool module is
 * loaded: src/server-deferred.ts).
 */
import type { Config, Toolset } from './config.js';

/** What the rule reads of a tool: a `ToolSpec`, or the build-time summary of one (src/tools-list-prebuilt.ts). */
export interface VisibilityFacts {
  toolset: Toolset;
  /** Truthy for a billable tool (a spec's `billable` part, a summary's `true`). */
  billable?: unknown;
}

export function visibleSpecs<T extends VisibilityFacts>(specs: readonly T[], config: Config): T[] {
  return specs.filter(
    (s) => config.toolsets.includes(s.toolset) && !(config.readOnly && s.billable) && approvalsShown(s.toolset, config),
  );
}

/**
 * The `approvals` toolset (decide_approval) decides money, so read-only mode hides it like a paid tool; and it
 * has nothing to decide without an approval policy (GENPLAT_APPROVALS), so it is not listed then either.
 */
function approvalsShown(toolset: Toolset, config: Pick<Config, 'readOnly' | 'approvalsFile'>): boolean {
  return toolset !== 'approvals' || (!config.readOnly && config.approvalsFile !== undefined);
}
