/** Spawning stdio MCP servers for the bench, and the small statistics it reports. */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/** dist/src/index.js and the minimal baseline, resolved from dist/scripts/bench/. */
export const OUR_ENTRY = new URL('../../src/index.js', import.meta.url).pathname;
export const MINIMAL_ENTRY = new URL('./minimal-server.js', import.meta.url).pathname;

export interface Spawned {
  client: Client;
  /** The client's transport (the cold start reads when an answer arrives, before the client processes it). */
  transport: StdioClientTransport;
  pid: number;
  stderr: string[];
  close(): Promise<void>;
}

/**
 * Spawns `node entry ...args` with only `env` (plus the SDK's safe default variables) and connects a
 * client (the connect includes the MCP initialize round trip).
 */
export async function spawnStdio(entry: string, env: Record<string, string>, args: string[] = []): Promise<Spawned> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry, ...args],
    env,
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  const client = new Client({ name: 'genplat-bench', version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    transport,
    pid: transport.pid ?? -1,
    stderr,
    close: () => client.close(),
  };
}

/** VmRSS / VmHWM (peak) of a process in MiB, from /proc (Linux); undefined elsewhere. */
export function memory(pid: number): { rssMiB: number; peakMiB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/** Nearest-rank percentile of `values` (0-100). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export const median = (values: number[]) => percentile(values, 50);
export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
