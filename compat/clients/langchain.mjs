/**
 * LangChain `@langchain/mcp-adapters` (SDK v1 inside: the 2025-11-25 era, no elicitation declared → token flow).
 * MultiServerMCPClient.getTools() gives StructuredTools; the flow calls each tool's own `invoke`, which
 * returns the content as the model would see it (our first block is the JSON text).
 */
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { firstText, paidFlow, parseToolText } from '../lib/flow.mjs';
import { pkgVersion, serverSpec } from '../lib/server.mjs';

export const NAME = 'LangChain @langchain/mcp-adapters';
export const version = () => pkgVersion('@langchain/mcp-adapters');

export async function run({ label, onCleanup, result }) {
  const spec = serverSpec(label);
  result.stateDir = spec.stateDir;
  const client = new MultiServerMCPClient({
    // A tool that cannot be loaded is an error, not a skipped tool.
    throwOnLoadError: true,
    prefixToolNameWithServerName: false,
    useStandardContentBlocks: false,
    mcpServers: {
      genplat: {
        transport: 'stdio',
        command: spec.command,
        args: spec.args,
        env: spec.env,
        restart: { enabled: false },
      },
    },
  });
  onCleanup(() => client.close());
  const tools = await client.getTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  const invoke = async (name, args) => {
    const out = await byName.get(name).invoke(args);
    // The adapter returns a string, or [content, artifacts] with the content-and-artifact format.
    const content = Array.isArray(out) && out.length === 2 && !out[0]?.type ? out[0] : out;
    return parseToolText(firstText(content, name), name);
  };
  const flow = await paidFlow(invoke, label);
  return { toolsLoaded: tools.length, toolNames: [...byName.keys()], flowCompleted: true, ...flow };
}
