/**
 * The build-time tools/list (issue 13 item 7). The SDK answers tools/list by converting every tool's zod
 * schemas to JSON Schema, on every call: ~50 ms of a cold start on the 2-core CI box (CPU profile of the bin,
 * `portableSchema` input/output converters), and on HTTP again for each per-request instance. The answer only
 * depends on the tool specs, so scripts/bundle-bin.mjs computes it once from the real registrations (a real
 * server, every toolset, through a real client) and writes it into the bundled bin as `__GENPLAT_TOOLS_LIST__`.
 *
 * Unbundled (tests, scripts, `tsc` alone) the constant does not exist and the SDK's own handler answers.
 * Either way src/protocol/app-only.ts leaves App-only tools out for clients that declared no MCP Apps support.
 * `test/e2e/prebuilt-tools-list.test.ts` proves the bundled bin's answer equals the live one per configuration.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { CONFIRM_TOOL } from './apps/confirm-name.js';
import type { Config, Toolset } from './config.js';
import type { PreparedLists } from './protocol/app-only.js';
import { visibleSpecs } from './tool-visibility.js';

// Replaced by the bundler (rolldown `transform.define`) with the JSON text of a `Prebuilt`.
declare const __GENPLAT_TOOLS_LIST__: string | undefined;

/**
 * What the bundle carries. A tool spec's definition is the same in every configuration (the e2e test checks
 * four); the App's Confirm tool is not (its `tool` enum names the visible billable tools), so its definition is
 * kept per built configuration, keyed by that configuration's tool names: an Apps client of any other
 * configuration gets the SDK's live answer.
 */
export interface Prebuilt {
  /** Every spec tool's definition as the SDK lists it over stdio, the bin's transport (every toolset on). */
  tools: Tool[];
  /**
   * What decides each spec tool's visibility, in ALL_TOOLS order: the bin picks its lists from these before
   * any tool module is loaded (src/server-deferred.ts), by the same rule the runtime registers with.
   */
  specs: ToolSummary[];
  /** The Confirm tool's definition, keyed by `configKey(names of the spec tools registered with it)`. */
  confirm: Record<string, Tool>;
}

/** A spec tool as the visibility rule (src/tool-visibility.ts) reads it. */
export interface ToolSummary {
  name: string;
  toolset: Toolset;
  billable: boolean;
  /** The one transport it is listed on (src/tool-visibility.ts); absent = both. */
  only?: 'http' | 'stdio';
}

export const configKey = (names: readonly string[]): string => names.join(',');

let parsed: Prebuilt | undefined;

/** The build-time definitions, or undefined unbundled. */
export function prebuiltTools(): Prebuilt | undefined {
  if (typeof __GENPLAT_TOOLS_LIST__ !== 'string') return undefined;
  parsed ??= JSON.parse(__GENPLAT_TOOLS_LIST__) as Prebuilt;
  return parsed;
}

/**
 * The prebuilt tools/list answers for a server that registered the spec tools `names` (in registration order)
 * and, when it did, the Confirm tool `confirm`: one for clients that declared MCP Apps (with the Confirm tool,
 * an App-only tool) and one for the others (without it: src/protocol/app-only.ts). A list is undefined when the
 * build lacks a definition it needs, and that client gets the SDK's live answer: a wrong list would misstate a
 * tool, a slow one only costs time. Undefined altogether when unbundled.
 */
export function prebuiltToolsLists(names: readonly string[], confirm?: string): PreparedLists | undefined {
  const built = prebuiltTools();
  if (!built) return undefined;
  const byName = new Map(built.tools.map((t) => [t.name, t]));
  const specTools = names.map((n) => byName.get(n));
  if (specTools.some((t) => t === undefined)) return undefined;
  const forOthers = specTools as Tool[];
  if (confirm === undefined) return { forApps: forOthers, forOthers };
  const entry = built.confirm[configKey(names)];
  return { forApps: entry?.name === confirm ? [...forOthers, entry] : undefined, forOthers };
}

/**
 * The prebuilt answers for `config`, decided from the build-time summaries alone (no tool module loaded): the
 * tools `visibleSpecs` keeps, and the Confirm tool when one of them is billable (as registerConfirmTool decides).
 * Undefined when unbundled or when either kind of client would need the live answer.
 */
export function prebuiltListsFor(config: Config): { forApps: Tool[]; forOthers: Tool[] } | undefined {
  const built = prebuiltTools();
  if (!built) return undefined;
  // The bundled bin answers from these on stdio only (src/server-deferred.ts): HTTP builds its servers whole.
  const visible = visibleSpecs(built.specs, config, 'stdio');
  const lists = prebuiltToolsLists(
    visible.map((s) => s.name),
    visible.some((s) => s.billable) ? CONFIRM_TOOL : undefined,
  );
  return lists?.forApps && lists.forOthers ? { forApps: lists.forApps, forOthers: lists.forOthers } : undefined;
}
