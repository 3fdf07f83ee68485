/**
 * src/protocol/hold-until-installed.ts on a real McpServer and a real SDK client (in memory): the shell's methods
 * are answered at once, the first other request starts the install, it and the requests behind it wait for it and
 * are then dispatched to the SDK; a failed install reaches `onFailure` and nothing held is answered.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { holdUntilInstalled } from '../../src/protocol/hold-until-installed.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A server with tools and prompts declared but nothing registered until `install` runs. */
async function connect(install: (server: McpServer) => Promise<void>, onFailure: (err: unknown) => void) {
  const server = new McpServer(
    { name: 'hold-test', version: '0.0.0' },
    { capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } } },
  );
  const order: string[] = [];
  let installs = 0;
  holdUntilInstalled(
    server,
    async () => {
      installs += 1;
      await install(server);
    },
    onFailure,
  );
  const client = new Client({ name: 'hold-test-client', version: '0.0.0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return { server, client, order, installs: () => installs };
}

describe('holdUntilInstalled', () => {
  it('answers tools/list and ping without installing; holds a tool call and what follows until installed, then answers each', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const order: string[] = [];
    const { client, installs } = await connect(
      async (server) => {
        await gate;
        server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => {
          order.push(`echo ${text}`);
          return { content: [{ type: 'text', text }] };
        });
        server.registerPrompt('hello', { description: 'says hello' }, async () => {
          order.push('prompt');
          return { messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }] };
        });
      },
      () => {},
    );

    expect((await client.listTools()).tools).toEqual([]);
    await client.ping();
    expect(installs()).toBe(0);

    const answers = Promise.all([
      client.callTool({ name: 'echo', arguments: { text: 'one' } }),
      client.getPrompt({ name: 'hello' }),
      client.callTool({ name: 'echo', arguments: { text: 'two' } }),
    ]);
    // Nothing is dispatched while the install waits.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(order).toEqual([]);
    expect(installs()).toBe(1);
    release();
    const [one, prompt, two] = await answers;
    expect(one.content).toEqual([{ type: 'text', text: 'one' }]);
    expect(prompt.messages).toHaveLength(1);
    expect(two.content).toEqual([{ type: 'text', text: 'two' }]);
    // Each ran once. (Dispatch is in arrival order; the SDK then runs handlers concurrently, as on any server.)
    expect([...order].sort()).toEqual(['echo one', 'echo two', 'prompt']);
    // Installed once; later requests go straight to the SDK.
    expect((await client.callTool({ name: 'echo', arguments: { text: 'three' } })).content).toEqual([
      { type: 'text', text: 'three' },
    ]);
    expect(installs()).toBe(1);
  });

  it('the SDK validates held calls as usual: bad arguments get its error, the handler never runs', async () => {
    let ran = false;
    const { client } = await connect(
      async (server) => {
        server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async () => {
          ran = true;
          return { content: [] };
        });
      },
      () => {},
    );
    const r = await client.callTool({ name: 'echo', arguments: { text: 42 } });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toMatch(/text/);
    expect(ran).toBe(false);
  });

  it('a failed install goes to onFailure and the held request is not answered', async () => {
    const failures: unknown[] = [];
    const { client } = await connect(
      async () => {
        throw new Error('chunk missing');
      },
      (err) => failures.push(err),
    );
    let answered = false;
    void client.callTool({ name: 'echo', arguments: {} }).then(
      () => {
        answered = true;
      },
      () => {
        answered = true;
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(failures.map((e) => (e as Error).message)).toEqual(['chunk missing']);
    expect(answered).toBe(false);
  });
});
