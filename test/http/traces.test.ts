/**
 * Traces (issue 30 item 1, docs/operate.md "Traces"): a real SDK v2 client over Streamable HTTP with a bearer token
 * (both eras; vitest runs test/http once per era) sends `params._meta.traceparent`; the server's spans, collected
 * by the SDK's InMemorySpanExporter through the `startTracing` seam, continue that trace: the tool span (SERVER,
 * `tools/call <tool>`, MCP semantic-convention attributes) is the caller's span's child, and the paid call's steps
 * (quote, consent, admission, the platform request, settle) are the tool span's children. No attribute of any span
 * carries the API key, the bearer token, the confirmation token or the request body.
 */
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PlatformHttp } from '../../src/client/http.js';
import { inSpan, startTracing, stopTracing } from '../../src/telemetry/traces.js';
import { scanForSecret } from '../helpers/secret-scan.js';
import { type HttpFixture, sc, startHttpFixture, type TestClient, TOKEN_A, testEra } from './helpers.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const META = { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`, tracestate: 'host=agent-7' };
const SCRIPT = 'Traced take, a sentence only the request body holds.';
const ARGS = { avatar_id: 'av_ava', voice_script: SCRIPT };
const SPAN_KIND = { INTERNAL: 0, SERVER: 1, CLIENT: 2 } as const;
const ERROR = 2;

const exporter = new InMemorySpanExporter();
let fx: HttpFixture;
let c: TestClient;

beforeAll(async () => {
  await startTracing({ exporters: [] }, { exporter });
  fx = await startHttpFixture({ confirm: { mode: 'always' } });
  c = await fx.connect(TOKEN_A);
});
afterAll(async () => {
  await fx?.close();
  await stopTracing();
});

const call = async (name: string, args: Record<string, unknown>) => {
  exporter.reset();
  const r = await c.client.callTool({ name, arguments: args, _meta: META });
  return { r, spans: exporter.getFinishedSpans() };
};
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const only = (spans: ReadableSpan[], name: string) => {
  const found = spans.filter((s) => s.name === name);
  expect(
    found.map((s) => s.name),
    `spans: ${spans.map((s) => s.name).join(', ')}`,
  ).toEqual([name]);
  return found[0]!;
};

describe(`traces (${testEra()} era)`, () => {
  let confirmationToken = '';
  const seen: ReadableSpan[] = [];

  it('a quote continues the caller trace: the tool span and its quote and consent steps', async () => {
    const { r, spans } = await call('create_talking_video', ARGS);
    seen.push(...spans);
    expect(sc(r).status).toBe('confirmation_required');
    confirmationToken = String(sc(r).confirmation_token);
    const tool = only(spans, 'tools/call create_talking_video');
    expect(tool.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(tool)).toBe(CALLER_SPAN);
    expect(tool.parentSpanContext?.traceState?.get('host')).toBe('agent-7');
    expect(tool.kind).toBe(SPAN_KIND.SERVER);
    expect(tool.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'create_talking_video',
      'gen_ai.operation.name': 'execute_tool',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'mcp.protocol.version': testEra() === 'modern' ? '2026-07-28' : '2025-11-25',
    });
    expect(tool.attributes['jsonrpc.request.id']).toEqual(expect.any(String));
    expect(tool.attributes['error.type']).toBeUndefined();
    const quote = only(spans, 'genplat.quote');
    expect(parentOf(quote)).toBe(tool.spanContext().spanId);
    expect(quote.attributes).toMatchObject({
      'genplat.quote.credits': expect.any(Number),
      'genplat.quote.bounded': true,
    });
    const consent = only(spans, 'genplat.consent');
    expect(parentOf(consent)).toBe(tool.spanContext().spanId);
    expect(consent.attributes['genplat.consent.decision']).toBe('answer');
    // Asking costs nothing: no admission, no POST; the quote's own read of the catalog is the quote's child.
    expect(spans.filter((s) => s.name === 'genplat.admission' || s.name.startsWith('POST '))).toEqual([]);
    for (const read of spans.filter((s) => s.kind === SPAN_KIND.CLIENT)) {
      expect(read.name).toMatch(/^GET \//);
      expect(parentOf(read)).toBe(quote.spanContext().spanId);
    }
  });

  it('the confirmed call: the platform request is a child of the tool span, with method, route and status', async () => {
    const { r, spans } = await call('create_talking_video', { ...ARGS, confirmation_token: confirmationToken });
    seen.push(...spans);
    expect(sc(r).status).toBe('submitted');
    const tool = only(spans, 'tools/call create_talking_video');
    expect(tool.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(tool)).toBe(CALLER_SPAN);
    const post = only(spans, 'POST /video/generate');
    expect(post.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(post)).toBe(tool.spanContext().spanId);
    expect(post.kind).toBe(SPAN_KIND.CLIENT);
    expect(post.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.template': '/video/generate',
      'server.address': '127.0.0.1',
      'http.response.status_code': expect.any(Number),
    });
    expect(post.attributes['http.response.status_code']).toBeLessThan(300);
    for (const step of ['genplat.quote', 'genplat.consent', 'genplat.admission', 'genplat.settle']) {
      expect(parentOf(only(spans, step)), step).toBe(tool.spanContext().spanId);
    }
    expect(only(spans, 'genplat.consent').attributes).toMatchObject({
      'genplat.consent.decision': 'allow',
      'genplat.consent.path': expect.any(String),
    });
    expect(only(spans, 'genplat.admission').attributes['genplat.admission.outcome']).toBe('admitted');
    expect(only(spans, 'genplat.settle').attributes['genplat.settle.outcome']).toBe('submitted');
  });

  it('an isError result: error.type = tool_error on the tool span, and the consent span names the rule', async () => {
    // The same call again, without allow_duplicate: refused as a duplicate before anything is sent.
    const { r, spans } = await call('create_talking_video', ARGS);
    seen.push(...spans);
    expect(r.isError).toBe(true);
    const tool = only(spans, 'tools/call create_talking_video');
    expect(tool.attributes['error.type']).toBe('tool_error');
    expect(tool.status.code).toBe(ERROR);
    expect(only(spans, 'genplat.consent').attributes['genplat.admission.refused_by']).toBe('duplicate');
    expect(spans.filter((s) => s.name === 'genplat.admission' || s.name.startsWith('POST '))).toEqual([]);
  });

  it('a platform request outside any traced call (background polling) makes no span; inside one it does', async () => {
    const http = new PlatformHttp({ baseUrl: fx.sim.baseUrl, apiKey: fx.sim.apiKey });
    const voices = {
      method: 'GET',
      path: '/video/voices',
      schema: z.unknown(),
      envelope: true,
      submit: false,
    } as const;
    try {
      exporter.reset();
      await http.request(voices);
      expect(exporter.getFinishedSpans()).toEqual([]);
      await inSpan('caller', {}, () => http.request(voices));
      const [read, caller] = exporter.getFinishedSpans();
      expect(read?.name).toBe('GET /video/voices');
      expect(parentOf(read!)).toBe(caller?.spanContext().spanId);
    } finally {
      await http.close();
    }
  });

  it('over HTTP without _meta, the W3C traceparent header is the parent; _meta wins when both are sent', async () => {
    const HEADER_TRACE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const HEADER_SPAN = '1122334455667788';
    // A gateway (or an instrumented fetch) adds the W3C headers; the MCP client itself sends no trace context.
    const traced = await fx.connect(TOKEN_A, {
      fetch: (url, init) => {
        const headers = new Headers(init?.headers);
        headers.set('traceparent', `00-${HEADER_TRACE}-${HEADER_SPAN}-01`);
        return fetch(url, { ...init, headers });
      },
    });
    exporter.reset();
    await traced.client.callTool({ name: 'list_jobs', arguments: {} });
    const viaHeader = only(exporter.getFinishedSpans(), 'tools/call list_jobs');
    expect(viaHeader.spanContext().traceId).toBe(HEADER_TRACE);
    expect(parentOf(viaHeader)).toBe(HEADER_SPAN);

    exporter.reset();
    await traced.client.callTool({ name: 'list_jobs', arguments: {}, _meta: META });
    const viaMeta = only(exporter.getFinishedSpans(), 'tools/call list_jobs');
    expect(viaMeta.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(viaMeta)).toBe(CALLER_SPAN);
  });

  it('no span carries the API key, the bearer token, the confirmation token or the request body', () => {
    expect(seen.length).toBeGreaterThan(8);
    const sources = seen.map((s) => ({
      name: s.name,
      text: JSON.stringify({ name: s.name, attributes: s.attributes, events: s.events, status: s.status }),
    }));
    expect(confirmationToken.length).toBeGreaterThan(10);
    for (const secret of [fx.sim.apiKey, TOKEN_A, confirmationToken, SCRIPT]) {
      expect(scanForSecret(secret, sources), secret).toEqual([]);
    }
  });
});
