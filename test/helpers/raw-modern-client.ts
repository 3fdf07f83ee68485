/**
 * A minimal raw JSON-RPC client speaking 2026-07-28, for what the v2 SDK client will not do: it refuses a
 * `resultType: 'task'` answer (mcp-notes 6), so the tasks extension is tested through this one. It sends what a
 * 2026-07-28 client sends (the per-request `_meta` envelope and the `Mcp-Method` / `Mcp-Name` headers) through
 * any `send`: the SDK's in-process `createMcpHandler(...).fetch` (test/protocol/tasks.test.ts) or real HTTP
 * with a bearer token through the fleet's proxy (test/fleet/http-fleet.test.ts). Each request stands alone:
 * nothing but the server's store links one to the next.
 */
import { expect } from 'vitest';

export const MODERN = '2026-07-28';

export type Json = Record<string, unknown>;

export interface RpcAnswer {
  result?: Json;
  error?: { code: number; message: string; data?: unknown };
}

/** One request, one answer (JSON or SSE, read whole). */
export type RawCaller = (method: string, params?: Json, name?: string) => Promise<RpcAnswer>;

export interface RawClientOptions {
  /** Declared in every request's `clientCapabilities` (e.g. the tasks extension, elicitation). */
  capabilities?: Json;
  /** Where requests go (a fleet's proxy); the in-process handler ignores the host. */
  url?: string;
  /** Extra headers on every request (Authorization for the real HTTP path). */
  headers?: Record<string, string>;
}

export function rawModernClient(send: (req: Request) => Promise<Response>, o: RawClientOptions = {}): RawCaller {
  let id = 0;
  const url = o.url ?? 'http://tasks.test/mcp';
  return async (method, params = {}, name) => {
    const body = {
      jsonrpc: '2.0',
      id: ++id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'raw-modern-client', version: '0.0.0' },
          'io.modelcontextprotocol/clientCapabilities': o.capabilities ?? {},
        },
      },
    };
    const res = await send(
      new Request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': method,
          ...(name !== undefined ? { 'mcp-name': name } : {}),
          ...o.headers,
        },
        body: JSON.stringify(body),
      }),
    );
    const text = await res.text();
    if (!res.ok && !text.startsWith('{') && !text.includes('data:')) {
      throw new Error(`HTTP ${res.status} for ${method}: ${text.slice(0, 200)}`);
    }
    // A JSON answer, or an SSE stream whose data line with our id is the response.
    const json = res.headers.get('content-type')?.includes('text/event-stream')
      ? (text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => JSON.parse(l.slice(5)) as Json)
          .find((m) => m.id === body.id) ?? {})
      : (JSON.parse(text) as Json);
    return json as RpcAnswer;
  };
}

export const callToolRaw = (c: RawCaller, tool: string, args: Json) =>
  c('tools/call', { name: tool, arguments: args }, tool);
export const getTask = (c: RawCaller, taskId: string) => c('tasks/get', { taskId }, taskId);

/**
 * Polls tasks/get until the task leaves `working`, bounded by attempts (never by a clock assertion); a 10 ms
 * pause between polls lets the test poller's 20 ms interval pass. `check` sees every answer (a schema check).
 */
export async function pollTaskToEnd(
  c: RawCaller,
  taskId: string,
  o: { check?: (result: unknown) => void; attempts?: number } = {},
): Promise<Json> {
  const attempts = o.attempts ?? 500;
  for (let i = 0; i < attempts; i++) {
    const r = await getTask(c, taskId);
    if (r.error) throw new Error(`tasks/get failed: ${r.error.message}`);
    o.check?.(r.result);
    expect(r.result?.taskId).toBe(taskId);
    if (r.result?.status !== 'working') return r.result!;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`task still working after ${attempts} polls`);
}
