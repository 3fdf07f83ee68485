/**
 * stdio transport through the SDK's `serveStdio`, which owns the era decision: a 2026-07-28 client opens with
 * `server/discover`, a 2025-era one with `initialize`, and one instance from the factory is pinned for the
 * connection. stdout carries JSON-RPC only (invariant 6). `closed` resolves when the host closes stdin, so
 * the entry can shut down cleanly.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';

export interface StdioConnection {
  /** Resolves once the host went away (stdin ended) or the transport closed. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves `factory`'s server over the process's stdin/stdout. */
export function connectStdio(
  factory: (ctx: { era: 'legacy' | 'modern' }) => McpServer,
  stdin: NodeJS.ReadableStream = process.stdin,
  stdout: NodeJS.WritableStream = process.stdout,
): StdioConnection {
  const transport = new StdioServerTransport(stdin as never, stdout as never);
  let done!: () => void;
  const closed = new Promise<void>((resolve) => {
    done = resolve;
  });
  // The host closing the pipe means "exit" (the transport also closes itself on EOF).
  stdin.once('end', () => done());
  stdin.once('close', () => done());
  const handle = serveStdio(factory, { transport, onerror: () => {} });
  return {
    closed,
    close: async () => {
      await handle.close();
      done();
    },
  };
}
