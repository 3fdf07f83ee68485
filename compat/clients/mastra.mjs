/**
 * Mastra: `@mastra/mcp` MCPClient → `listToolsets()` (Mastra's own Tool objects, grouped by server, as an
 * Agent's `toolsets` takes them), then each tool's `execute(input, context)`. Mastra validates the input
 * against the schema it converted from tools/list before calling, as in an agent run.
 */
import { MCPClient } from '@mastra/mcp';
import { check, firstText, paidFlow, parseToolText } from '../lib/flow.mjs';
import { pkgVersion, serverSpec } from '../lib/server.mjs';

export const NAME = 'Mastra @mastra/mcp';
export const version = () => `${pkgVersion('@mastra/mcp')} (core ${pkgVersion('@mastra/core')})`;

/** Mastra's execute gives back the MCP result, or its structured content, or a validation-error object. */
function toObject(name, out) {
  check(out && typeof out === 'object', `${name}: no result`, out);
  check(!out.error && !out.isError, `${name} is an error`, out);
  if (out.structuredContent) return out.structuredContent;
  if (Array.isArray(out.content)) return parseToolText(firstText(out.content, name), name);
  return out;
}

export async function run({ label, onCleanup, result }) {
  const spec = serverSpec(label);
  result.stateDir = spec.stateDir;
  const mcp = new MCPClient({
    id: `genplat-compat-${process.pid}`,
    // wait_for_jobs holds a call up to max_wait_s (20 s here); Mastra's default per-call timeout is 60 s.
    timeout: 60_000,
    servers: { genplat: { command: spec.command, args: spec.args, env: spec.env } },
  });
  onCleanup(() => mcp.disconnect());
  const { toolsets, errors } = await mcp.listToolsetsWithErrors();
  check(Object.keys(errors ?? {}).length === 0, 'listToolsets errors', errors);
  const tools = toolsets.genplat ?? {};
  const names = Object.keys(tools);
  const invoke = async (name, args) => toObject(name, await tools[name].execute(args, {}));
  const flow = await paidFlow(invoke, label);
  return { toolsLoaded: names.length, toolNames: names, flowCompleted: true, ...flow };
}
