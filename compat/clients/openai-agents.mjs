/**
 * OpenAI Agents SDK: `MCPServerStdio` + `getAllMcpTools({ convertSchemasToStrict: true })` — the FunctionTools
 * an Agent hands to the model, with strict schema conversion ON. A tool whose schema the SDK cannot make
 * strict falls back to non-strict with a console.warn ("Error converting MCP schema to strict mode:") that
 * does not name the tool; we name it from the tool object's own `strict` flag. The flow calls each
 * FunctionTool's `invoke(runContext, jsonArguments)` as the runner does after a model's tool call.
 */
import {
  getAllMcpTools,
  MCPServerStdio,
  RunContext,
  setSensitiveDataLoggingEnabled,
  setTracingDisabled,
} from '@openai/agents';
import { captured } from '../lib/capture.mjs';
import { check, firstText, paidFlow, parseToolText } from '../lib/flow.mjs';
import { openObjectPaths } from '../lib/open-maps.mjs';
import { pkgVersion, serverSpec } from '../lib/server.mjs';

export const NAME = 'OpenAI @openai/agents (strict schemas)';
export const version = () => pkgVersion('@openai/agents');

export async function run({ label, onCleanup, result }) {
  // No model and no network here: no trace export. Tool data in logs = the reason of a strict fallback.
  setTracingDisabled(true);
  setSensitiveDataLoggingEnabled(true);
  const spec = serverSpec(label);
  result.stateDir = spec.stateDir;
  const server = new MCPServerStdio({
    name: 'genplat',
    command: spec.command,
    args: spec.args,
    env: spec.env,
    // Waits up to 20 s server-side (wait_for_jobs max_wait_s); the SDK's default session timeout is shorter.
    clientSessionTimeoutSeconds: 60,
  });
  await server.connect();
  onCleanup(() => server.close());
  const tools = await getAllMcpTools({ mcpServers: [server], convertSchemasToStrict: true });
  const notStrict = tools.filter((t) => t.strict !== true).map((t) => t.name);
  // The SDK's warning names no tool: it is printed once per fallback, in conversion (= tools/list) order, so
  // the n-th one is about the n-th non-strict tool; its detail = where that tool's schema is open.
  const sdkWarnings = captured.filter((c) => c.text.startsWith('Error converting MCP schema to strict mode'));
  check(sdkWarnings.length === notStrict.length, 'one SDK warning per non-strict tool', { sdkWarnings, notStrict });
  const schemas = new Map((await server.listTools()).map((t) => [t.name, t.inputSchema]));
  sdkWarnings.forEach((c, i) => {
    c.tools = [notStrict[i]];
    c.detail = openObjectPaths(schemas.get(notStrict[i])).join('; ');
  });
  const byName = new Map(tools.map((t) => [t.name, t]));
  const ctx = new RunContext({});
  const invoke = async (name, args) => {
    const out = await byName.get(name).invoke(ctx, JSON.stringify(args));
    return parseToolText(firstText(typeof out === 'string' ? out : out, name), name);
  };
  const flow = await paidFlow(invoke, label);
  return {
    toolsLoaded: tools.length,
    toolNames: [...byName.keys()],
    strictTools: tools.length - notStrict.length,
    flowCompleted: true,
    ...flow,
  };
}
