/**
 * Vercel AI SDK: `@ai-sdk/mcp` createMCPClient over its stdio transport → `tools()` (the AI SDK's own tool
 * objects, schemas 'automatic' = from tools/list), then each tool's `execute`, as `generateText` would call it.
 * No elicitation capability is declared, so consent is the token flow on either era.
 */
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { check, firstText, paidFlow, parseToolText } from '../lib/flow.mjs';
import { pkgVersion, serverSpec } from '../lib/server.mjs';

export const NAME = 'Vercel ai + @ai-sdk/mcp';
export const version = () => `${pkgVersion('ai')} + ${pkgVersion('@ai-sdk/mcp')}`;

export async function run({ label, onCleanup, result }) {
  const spec = serverSpec(label);
  result.stateDir = spec.stateDir;
  const client = await createMCPClient({
    transport: new Experimental_StdioMCPTransport({ command: spec.command, args: spec.args, env: spec.env }),
    clientName: 'genplat-compat',
    onUncaughtError: (err) => console.error('ai-sdk uncaught:', err),
  });
  onCleanup(() => client.close());
  result.era = client.initializeResult?.protocolVersion;
  const tools = await client.tools();
  const names = Object.keys(tools);
  let n = 0;
  const invoke = async (name, args) => {
    const r = await tools[name].execute(args, { toolCallId: `compat-${++n}`, messages: [] });
    check(!r.isError, `${name} is an error`, r.content);
    return r.structuredContent ?? parseToolText(firstText(r.content, name), name);
  };
  const flow = await paidFlow(invoke, label);
  return { toolsLoaded: names.length, toolNames: names, flowCompleted: true, ...flow };
}
