/**
 * A 2026-07-28 client over stdio (the built server spawned as a host spawns it, `serveStdio`): its declared
 * capabilities arrive only on each request's envelope, which SDK 2.4's stdio entry does not copy onto the
 * instance. The consent form must still reach it as `input_required` (invariant 1, the modern carrier on
 * stdio); a 2026 client without elicitation keeps the token flow. The in-process modern harness is HTTP only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, ElicitRequest } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { ENTRY, ensureBuilt } from '../helpers/build.js';

const ARGS = { avatar_id: 'av_ava', voice_id: 'voice_en_rachel' };
const POSTS = { method: 'POST', path: '/video/generate' } as const;

let sim: Simulator;
let stateDir: string;
const open: Client[] = [];

async function connect(onElicit?: (req: ElicitRequest) => void): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [ENTRY],
    env: {
      GENPLAT_BASE_URL: sim.baseUrl,
      GENPLAT_API_KEY: sim.apiKey,
      GENPLAT_CONFIRM: 'always',
      GENPLAT_STATE_DIR: stateDir,
    },
    stderr: 'ignore',
  });
  const client = new Client(
    { name: 'stdio-modern-test', version: '0.0.0' },
    {
      capabilities: onElicit ? { elicitation: { form: {} } } : {},
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  if (onElicit) {
    client.setRequestHandler('elicitation/create', async (req) => {
      onElicit(req);
      return { action: 'accept', content: { confirm: true } };
    });
  }
  await client.connect(transport);
  open.push(client);
  return client;
}

const sc = (r: unknown) => (r as CallToolResult).structuredContent as Record<string, unknown>;

beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ timing: 'test' });
  stateDir = mkdtempSync(join(tmpdir(), 'genplat-stdio-modern-'));
}, 120_000);

afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

afterAll(async () => {
  await sim?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

describe('2026-07-28 over stdio', () => {
  it('negotiates 2026-07-28, and a client declaring elicitation is asked once through input_required: 1 POST', async () => {
    const asked: ElicitRequest[] = [];
    const client = await connect((req) => asked.push(req));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const before = sim.log.count(POSTS);
    const r = await client.callTool({
      name: 'create_talking_video',
      arguments: { ...ARGS, voice_script: 'Stdio, modern era, form.' },
    });
    expect(r.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(sc(r).status).toBe('submitted');
    expect(sim.log.count(POSTS)).toBe(before + 1);
  }, 60_000);

  it('a client without elicitation is quoted a token and nothing is sent', async () => {
    const client = await connect();
    const before = sim.log.count(POSTS);
    const r = await client.callTool({
      name: 'create_talking_video',
      arguments: { ...ARGS, voice_script: 'Stdio, modern era, token.' },
    });
    expect(sc(r).status).toBe('confirmation_required');
    expect(typeof sc(r).confirmation_token).toBe('string');
    expect(sim.log.count(POSTS)).toBe(before);
  }, 60_000);
});
