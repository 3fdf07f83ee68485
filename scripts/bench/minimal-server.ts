/**
 * The baseline for `npm run bench`: the smallest useful MCP server the same SDK builds — one tool over
 * stdio, nothing else. Our cold start and per-call overhead are reported against it.
 */

import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'bench-minimal', version: '0.0.0' });
server.registerTool(
  'echo',
  { description: 'Echoes its input.', inputSchema: z.object({ text: z.string().describe('text to echo') }) },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);
await server.connect(new StdioServerTransport());
