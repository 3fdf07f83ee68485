/**
 * Which tools a configuration exposes: the chosen toolsets; read-only mode hides every billable tool; a tool
 * that cannot work on the transport is not listed there (issue 29 item 8). Its own small module because two
 * callers decide from it: the runtime (which specs to register) and the bundled bin's start-up (which prebuilt
 * tools/list to answer with, from the build-time summaries, before any tool module is loaded:
 * src/server-deferred.ts).
 */
import type { Config, Toolset } from './config.js';

/** The transports a tool can work on: `http` = a verified caller (a person); `stdio` = the local person's machine. */
export type ToolTransport = 'http' | 'stdio';

/** What the rule reads of a tool: a `ToolSpec`, or the build-time summary of one (src/tools-list-prebuilt.ts). */
export interface VisibilityFacts {
  toolset: Toolset;
  /** Truthy for a billable tool (a spec's `billable` part, a summary's `true`). */
  billable?: unknown;
  /** The one transport it works on (request_upload, decide_approval: `http`; save_outputs: `stdio`); absent = both. */
  only?: ToolTransport | undefined;
}

/**
 * The tools `config` lists on `transport`. HTTP is the server with a caller (ServerDeps.owner set: every HTTP
 * request has its person); stdio has none (see `transportOf`).
 */
export function visibleSpecs<T extends VisibilityFacts>(
  specs: readonly T[],
  config: Config,
  transport: ToolTransport,
): T[] {
  return specs.filter(
    (s) =>
      config.toolsets.includes(s.toolset) &&
      !(config.readOnly && s.billable) &&
      approvalsShown(s.toolset, config) &&
      (s.only === undefined || s.only === transport),
  );
}

/** The transport a server instance serves: an owner is HTTP's caller; stdio never has one (ToolContext.owner). */
export function transportOf(deps: { owner?: string | undefined }): ToolTransport {
  return deps.owner === undefined ? 'stdio' : 'http';
}

/**
 * The `approvals` toolset (decide_approval) decides money, so read-only mode hides it like a paid tool; and it
 * has nothing to decide without an approval policy (GENPLAT_APPROVALS), so it is not listed then either.
 */
function approvalsShown(toolset: Toolset, config: Pick<Config, 'readOnly' | 'approvalsFile'>): boolean {
  return toolset !== 'approvals' || (!config.readOnly && config.approvalsFile !== undefined);
}
