/**
 * The build-time tools/list (issue 13 item 7). The SDK answers tools/list by converting every tool's zod
 * schemas to JSON Schema, on every call: ~50 ms of a cold start on the 2-core CI box (CPU profile of the bin,
 * `portableSchema` input/output converters), and on HTTP again for each per-request instance. The answer only
 * depends on the tool specs, so scripts/bundle-bin.mjs computes it once from the real registrations (a real
 * server, every toolset, through a real client) and writes it into the bundled bin as `__GENPLAT_TOOLS_LIST__`.
 *
 * Unbundled (tests, scripts, `tsc` alone) the constant does not exist and the SDK's own handler answers.
 * `test/e2e/prebuilt-tools-list.test.ts` proves the bundled bin's answer equals the live one per configuration.
 */
import type { McpServer, Tool } from '@modelcontextprotocol/server';

// Replaced by the bundler (rolldown `transform.define`) with the JSON text of a `Prebuilt`.
declare const __GENPLAT_TOOLS_LIST__: string | undefined;

/**
 * What the bundle carries. A tool spec's definition is the same in every configuration (the e2e test checks
 * four); the App's Confirm tool is not (its `tool` enum names the visible billable tools), so its definition is
 * kept per built configuration, keyed by that configuration's tool names: any other configuration gets the
 * SDK's live answer.
 */
export interface Prebuilt {
  /** Every spec tool's definition as the SDK lists it (every toolset on). */
  tools: Tool[];
  /** The Confirm tool's definition, keyed by `configKey(names of the spec tools registered with it)`. */
  confirm: Record<string, Tool>;
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
 * Makes `server` answer tools/list from the prebuilt definitions of `names` (the spec tools it registered, in
 * registration order), followed by the Confirm tool `confirm` when it registered it. Keeps the SDK's handler
 * (returns false) when there is no prebuilt list or it lacks a definition: a wrong list would misstate a tool,
 * a slow one only costs time.
 */
export function servePrebuiltToolsList(server: McpServer, names: readonly string[], confirm?: string): boolean {
  const built = prebuiltTools();
  if (!built) return false;
  const byName = new Map(built.tools.map((t) => [t.name, t]));
  const tools = names.map((n) => byName.get(n));
  if (confirm !== undefined) {
    const entry = built.confirm[configKey(names)];
    tools.push(entry?.name === confirm ? entry : undefined);
  }
  if (tools.some((t) => t === undefined)) return false;
  // Replaces the handler McpServer installed at the first registerTool; tools/call stays the SDK's.
  server.server.setRequestHandler('tools/list', () => ({ tools: tools as Tool[] }));
  return true;
}
