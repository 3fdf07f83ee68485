/**
 * The tool runtime's cross-cutting behaviour: registration (filters, annotations, schemas), the ledger
 * intent before the POST, error mapping, progress, and the SDK behaviour `result.ts` relies on.
 */

import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CONFIRM_TOOL } from '../../src/apps/confirm-tool.js';
import { defineTool, type ToolSpec } from '../../src/define-tool.js';
import { estimate } from '../../src/jobs/envelope.js';
import { ALL_TOOLS } from '../../tools/index.js';
import { APPS_HOST, type Harness, type HarnessOptions, startHarness, structured, text } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const start = async (o: HarnessOptions = {}) => {
  h = await startHarness(o);
  return h;
};

const ANN = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };

/** A billable spec that runs `body` instead of a real POST (it still goes through the whole runtime). */
function fakeBillable(body: (ctx: Parameters<NonNullable<ToolSpec['run']>>[1]) => Promise<unknown>) {
  return defineTool({
    name: 'create_fake',
    title: 'Fake',
    toolset: 'video',
    description: 'test',
    input: { n: z.number().describe('n') },
    annotations: ANN,
    billable: { kind: () => 'actor_video', estimate: async () => estimate(10, 'test'), summary: () => 'fake job' },
    request: (i) => ({ route: '/fake', body: { n: i.n } }),
    async run(_i, ctx) {
      await body(ctx);
      return { ref: { kind: 'actor_video', id: 'fake1' }, requestId: 'rq1', remote: { id: 'fake1' } };
    },
  });
}

describe('registration', () => {
  it('every tool has a title, all four hints, an output schema; billable tools the guard fields', async () => {
    // An approval policy named, so decide_approval is listed too (src/tool-visibility.ts): every tool is checked.
    await start({ tools: ALL_TOOLS, clientCapabilities: APPS_HOST, config: { approvalsFile: '/policy.json' } });
    const { tools } = await h!.client.listTools();
    // Plus the App's app-only Confirm button (src/apps/confirm-tool.ts), listed to this MCP Apps client. Over stdio
    // (this harness has no caller) the HTTP-only tools are not listed (tool-visibility.ts; registry.test.ts: both).
    expect(tools.length).toBe(ALL_TOOLS.filter((s) => s.only !== 'http').length + 1);
    for (const t of tools.filter((x) => x.name !== CONFIRM_TOOL)) {
      expect(t.title, t.name).toBeTruthy();
      expect(Object.keys(t.annotations ?? {}), t.name).toEqual(
        expect.arrayContaining(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']),
      );
      expect(t.outputSchema, t.name).toBeDefined();
      const billable = ALL_TOOLS.find((s) => s.name === t.name)!.billable !== undefined;
      const props = Object.keys(t.inputSchema.properties ?? {});
      if (billable) {
        expect(t.annotations, t.name).toMatchObject(ANN);
        expect(props, t.name).toEqual(expect.arrayContaining(['confirmation_token', 'allow_duplicate']));
      } else {
        // save_outputs writes into the user's output folder, request_upload records a pending upload,
        // decide_approval records a decision that may send a paid request: honestly not read-only.
        expect(t.annotations?.readOnlyHint, t.name).toBe(
          !['save_outputs', 'request_upload', 'decide_approval'].includes(t.name),
        );
        expect(props, t.name).not.toContain('confirmation_token');
      }
    }
  });

  it('read-only mode hides every billable tool', async () => {
    await start({ tools: ALL_TOOLS, config: { readOnly: true } });
    const names = (await h!.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('create_talking_video');
    expect(names).toContain('wait_for_jobs');
    for (const n of names) expect(ALL_TOOLS.find((s) => s.name === n)?.billable).toBeUndefined();
  });

  it('toolsets choose what is exposed', async () => {
    await start({ tools: ALL_TOOLS, config: { toolsets: ['jobs'] } });
    const names = (await h!.client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(
      ALL_TOOLS.filter((s) => s.toolset === 'jobs' && s.only !== 'http')
        .map((s) => s.name)
        .sort(),
    );
  });

  it('tells the agent the flow in the server instructions', async () => {
    await start();
    const instructions = h!.client.getInstructions() ?? '';
    expect(instructions.split('\n').length).toBeLessThanOrEqual(6);
    expect(instructions).toMatch(/confirmation_token/);
    expect(instructions).toMatch(/wait_for_jobs/);
  });
});

describe('ledger and errors', () => {
  it('writes the ledger intent before run() is called', async () => {
    let seen: unknown[] = [];
    await start({
      tools: [
        fakeBillable(async (ctx) => {
          seen = await ctx.jobs.list({});
        }),
      ],
    });
    const r = await h!.call('create_fake', { n: 1 });
    expect(structured(r).status).toBe('submitted');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ outcome: 'pending', tool: 'create_fake', estimate: { credits: 10 } });
    expect(await h!.jobs.get('actor_video:fake1')).toMatchObject({ outcome: 'submitted', requestId: 'rq1' });
  });

  it('an unexpected error during run() is treated as a possible submission (unknown), never thrown', async () => {
    await start({
      tools: [
        fakeBillable(async () => {
          throw new TypeError('boom after send');
        }),
      ],
    });
    const r = await h!.call('create_fake', { n: 1 });
    expect(r.isError).toBeFalsy();
    expect(structured(r).status).toBe('unknown');
    expect(h!.logs.join('\n')).toMatch(/boom after send/);
    // The server still answers (the fake tool; the App's Confirm button only for a client that shows Apps).
    expect((await h!.client.listTools()).tools.map((t) => t.name)).toEqual(['create_fake']);
  });

  it('an unexpected error in a read tool gives a generic message and a full log line', async () => {
    const spec = defineTool({
      name: 'list_fake',
      title: 'Fake list',
      toolset: 'catalog',
      description: 'test',
      input: {},
      output: { n: z.number() },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      async run() {
        throw new RangeError('internal detail 42');
      },
    });
    await start({ tools: [spec] });
    const r = await h!.call('list_fake');
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/Internal error/);
    expect(text(r)).not.toMatch(/internal detail 42/);
    expect(h!.logs.join('\n')).toMatch(/RangeError: internal detail 42/);
  });

  it('no POST when the ledger cannot be written', async () => {
    await start({ config: { confirm: { mode: 'never' } } });
    await h!.jobs.close();
    const r = await h!.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'ledger down' });
    expect(r.isError).toBe(true);
    expect(h!.sim.log.count({ method: 'POST', path: '/video/generate' })).toBe(0);
  });

  it('never puts the API key in results or logs', async () => {
    await start({ config: { confirm: { mode: 'always' } } });
    const results = [
      await h!.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'key check' }),
      await h!.call('create_talking_video', { avatar_id: 'nope', voice_script: 'x', confirmation_token: 'bad' }),
    ];
    const all = JSON.stringify(results) + h!.logs.join('\n');
    expect(all).not.toContain(h!.sim.apiKey);
  });
});

describe('progress', () => {
  it('sends strictly increasing progress, only when the client asked', async () => {
    const spec = defineTool({
      name: 'list_progress',
      title: 'Progress',
      toolset: 'catalog',
      description: 'test',
      input: {},
      output: { ok: z.boolean() },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      async run(_i, ctx) {
        for (const p of [1, 1, 0.5, 2, 2, 3]) await ctx.progress({ progress: p, total: 3, message: `p${p}` });
        return { structured: { ok: true } };
      },
    });
    await start({ tools: [spec] });
    const got: number[] = [];
    await h!.call('list_progress', {}, { onprogress: (p) => got.push(p.progress) });
    expect(got).toEqual([1, 2, 3]);
    // Without onprogress the SDK client sends no token; the tool must still work.
    expect((await h!.call('list_progress')).isError).toBeFalsy();
  });
});

describe('SDK behaviour result.ts relies on', () => {
  // SDK v2's client no longer validates an isError result against the output schema; v1-based clients (still
  // in hosts and frameworks, e.g. LangChain's adapters) do and throw, which is why error results stay text-only.
  it('the v2 client passes an isError result whose structuredContent does not match the output schema', async () => {
    const server = new McpServer({ name: 's', version: '0' });
    server.registerTool(
      't',
      { inputSchema: z.object({}), outputSchema: z.object({ status: z.string() }) },
      async () => ({
        content: [{ type: 'text', text: 'failed' }],
        structuredContent: { error: { message: 'failed' } },
        isError: true,
      }),
    );
    const client = new Client({ name: 'c', version: '0' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(b), client.connect(a)]);
    await client.listTools();
    const r = await client.callTool({ name: 't', arguments: {} });
    expect(r.isError).toBe(true);
    await client.close();
    await server.close();
  });
});
