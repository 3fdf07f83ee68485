/**
 * stdio transport: stdout carries JSON-RPC only (invariant 6). Resolves `closed` when the host closes stdin
 * or the transport closes, so the entry can shut down cleanly.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

export interface StdioConnection {
  /** Resolves once the host went away (stdin ended) or the transport closed. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Connects `server` over the process's stdin/stdout. @throws what `connect` throws (already connected). */
export async function connectStdio(
  server: McpServer,
  stdin: NodeJS.ReadableStream = process.stdin,
  stdout: NodeJS.WritableStream = process.stdout,
): Promise<StdioConnection> {
  const transport = new StdioServerTransport(stdin as never, stdout as never);
  let done!: () => void;
  const closed = new Promise<void>((resolve) => {
    done = resolve;
  });
  transport.onclose = () => done();
  // The SDK transport does not notice EOF on stdin by itself: the host closing the pipe means "exit".
  stdin.once('end', () => done());
  stdin.once('close', () => done());
  await server.connect(transport);
  return { closed, close: () => transport.close() };
}
