/**
 * The built server (dist/src/index.js) as a child process on stdio, with a real SDK Client, keeping a raw
 * copy of everything it wrote to stdout and stderr. The SDK's own StdioClientTransport parses stdout and
 * drops what it cannot read, so invariant 6 ("stdout carries only JSON-RPC") needs this tee instead.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import type { ClientCapabilities, JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { Client, ReadBuffer, serializeMessage } from '@modelcontextprotocol/client';

export { ENTRY, ensureBuilt, ROOT } from './build.js';

import { ENTRY, ensureBuilt } from './build.js';
import { sharedValidator } from './shared-validator.js';

/** A client transport over a child process that records stdout and stderr byte for byte. */
class TeeStdioTransport implements Transport {
  onmessage?: (m: JSONRPCMessage) => void;
  onerror?: (e: Error) => void;
  onclose?: () => void;
  readonly stdout: Buffer[] = [];
  readonly stderr: Buffer[] = [];
  child: ChildProcessWithoutNullStreams | undefined;
  exited: Promise<number | null> = Promise.resolve(null);
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly args: string[],
    private readonly env: Record<string, string>,
  ) {}

  async start(): Promise<void> {
    // A clean environment: only what the test passes (plus PATH), so no developer key can leak in.
    const child = spawn(process.execPath, this.args, {
      env: { PATH: process.env.PATH ?? '', ...this.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdout.on('data', (d: Buffer) => {
      this.stdout.push(d);
      this.buffer.append(d);
      for (;;) {
        let msg: JSONRPCMessage | null;
        try {
          msg = this.buffer.readMessage();
        } catch (err) {
          // Not JSON-RPC: recorded in `stdout` above; the invariant test reports it.
          this.onerror?.(err as Error);
          continue;
        }
        if (!msg) break;
        this.onmessage?.(msg);
      }
    });
    child.stderr.on('data', (d: Buffer) => this.stderr.push(d));
    child.once('exit', () => this.onclose?.());
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', reject);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.child?.stdin.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    child.stdin.end();
    // The server exits when stdin closes; a stuck one is killed so a test never hangs. Generous: a graceful exit
    // (store closed, timers stopped) on a loaded 2-core box can take seconds, and a kill makes close() answer null.
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await this.exited;
    clearTimeout(timer);
  }
}

export interface SpawnedServer {
  client: Client;
  pid: number;
  /** Everything written to stdout so far, as text. */
  stdout(): string;
  stderr(): string;
  /** Closes stdin and waits for the process to exit; resolves with its exit code. */
  close(): Promise<number | null>;
}

/**
 * Spawns `node dist/src/index.js ...args` with exactly `env` (plus PATH) and connects a Client declaring
 * `opts.capabilities` (none by default), over 2025-11-25 unless `opts.era` is `modern` (2026-07-28).
 */
export async function spawnServer(
  env: Record<string, string>,
  args: string[] = [],
  opts: { capabilities?: ClientCapabilities; era?: 'legacy' | 'modern' } = {},
): Promise<SpawnedServer> {
  ensureBuilt();
  const transport = new TeeStdioTransport([ENTRY, ...args], env);
  const client = new Client(
    { name: 'genplat-spawn-test', version: '0.0.0' },
    {
      capabilities: opts.capabilities ?? {},
      jsonSchemaValidator: sharedValidator,
      ...(opts.era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  await client.connect(transport);
  return {
    client,
    pid: transport.child?.pid ?? -1,
    stdout: () => Buffer.concat(transport.stdout).toString('utf8'),
    stderr: () => Buffer.concat(transport.stderr).toString('utf8'),
    close: async () => {
      await client.close();
      await transport.close();
      return transport.exited;
    },
  };
}
