/**
 * The MCP server span of a tools/call, by the OpenTelemetry semantic conventions for MCP (gen-ai/mcp.md): name
 * `tools/call {gen_ai.tool.name}`, kind SERVER, parent = the caller's `params._meta.traceparent`/`tracestate`
 * (SEP-414; the SDK leaves both in `ctx.mcpReq._meta`; over HTTP without them, the W3C headers), `error.type` = `tool_error` when the result is `isError`.
 * Never the arguments or the result: only names, ids and the outcome.
 */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { inSpan, type SpanAttributes } from './traces.js';

/** Semantic-convention attribute values that say what carried the request (`pipe` = stdio, `tcp` = HTTP). */
function requestAttributes(server: McpServer, ctx: ServerContext): SpanAttributes {
  const http = ctx.http !== undefined;
  return {
    'mcp.method.name': ctx.mcpReq.method,
    'jsonrpc.request.id': String(ctx.mcpReq.id),
    'mcp.session.id': ctx.sessionId,
    // A stateless HTTP instance never saw initialize: the request's own MCP-Protocol-Version header says it.
    'mcp.protocol.version':
      server.server.getNegotiatedProtocolVersion() ?? ctx.http?.req?.headers.get('mcp-protocol-version') ?? undefined,
    'network.transport': http ? 'tcp' : 'pipe',
    'network.protocol.name': http ? 'http' : undefined,
  };
}

/** A tool handler registered outside the runtime (the App's Confirm tool), traced like the others. */
export function tracedTool<A, R extends object>(
  tool: string,
  server: McpServer,
  handler: (args: A, ctx: ServerContext) => Promise<R>,
): (args: A, ctx: ServerContext) => Promise<R> {
  return (args, ctx) => inToolSpan(tool, server, ctx, () => handler(args, ctx));
}

/** Runs one tool call's handler inside its server span. */
export function inToolSpan<R extends object>(
  tool: string,
  server: McpServer,
  ctx: ServerContext,
  handle: () => Promise<R>,
): Promise<R> {
  const attributes = {
    ...requestAttributes(server, ctx),
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': tool,
    'gen_ai.operation.name': 'execute_tool',
  };
  return inSpan(
    `tools/call ${tool}`,
    attributes,
    async (mark) => {
      const result = await handle();
      if ('isError' in result && result.isError === true) mark.fail('tool_error');
      return result;
    },
    { kind: 'server', parent: callerContext(ctx) },
  );
}

type TraceCarrier = { traceparent?: unknown; tracestate?: unknown };

/**
 * The caller's trace context: the request's `_meta` (the protocol's carrier, which survives any transport), else
 * over HTTP the W3C `traceparent`/`tracestate` headers — what a gateway or an HTTP client instrumented by
 * OpenTelemetry sends when the MCP client itself knows nothing of traces. `_meta` wins when both are there: it is
 * the MCP client's own span, nearer to this call than a proxy's.
 */
function callerContext(ctx: ServerContext): TraceCarrier | undefined {
  const meta = ctx.mcpReq._meta as TraceCarrier | undefined;
  if (typeof meta?.traceparent === 'string') return meta;
  const headers = ctx.http?.req?.headers;
  const traceparent = headers?.get('traceparent');
  if (!traceparent) return meta;
  return { traceparent, tracestate: headers?.get('tracestate') ?? undefined };
}
