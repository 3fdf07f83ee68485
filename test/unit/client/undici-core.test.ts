/**
 * src/client/undici-core.ts loads three of undici's files by path (undici 7 has no `exports` map). An upgrade
 * that moves or reshapes them must fail here, not in a host at the first platform request.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent as FullAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { requireUndiciCore } from '../../../src/client/undici-core.js';

describe('requireUndiciCore', () => {
  it('gives the Agent undici itself exports, with the request API', async () => {
    const { Agent } = requireUndiciCore();
    // One module instance: an injected dispatcher from the full package behaves the same.
    expect(Agent).toBe(FullAgent);
    const server = createServer((req, res) => {
      res.setHeader('x-request-id', 'req-1');
      res.end(`${req.method} ${req.url}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new Agent();
    try {
      const { port } = server.address() as AddressInfo;
      const res = await agent.request({ origin: `http://127.0.0.1:${port}`, path: '/v1/x?a=1', method: 'GET' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-request-id']).toBe('req-1');
      expect(await res.body.text()).toBe('GET /v1/x?a=1');
    } finally {
      await agent.close();
      server.close();
    }
  });
});
