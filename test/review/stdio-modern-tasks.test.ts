/**
 * src/protocol/tasks.ts `clientWantsTasks(server)` reads the client's capabilities from the instance only
 * (`clientCapabilities(server)` without ctx). Under `serveStdio` (SDK 2.4) a 2026-07-28 request's envelope is NOT
 * copied onto the instance (the very quirk era.ts documents for the consent form), so over stdio a 2026 client
 * that declares the tasks extension never gets a task, and its tasks/get is refused with -32021.
 */
import { PassThrough } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import { createPoller } from '../../src/jobs/poller.js';
import { createLogger } from '../../src/log.js';
import { TASKS_EXTENSION } from '../../src/protocol/tasks.js';
import { buildServer } from '../../src/server.js';
import { connectStdio } from '../../src/transports/stdio.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness | undefined;
const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  await h?.close();
  h = undefined;
});

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw-stdio', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
};

it('a 2026-07-28 stdio client that declares the tasks extension gets a task for a running paid job', async () => {
  h = await startHarness({ era: 'legacy' }); // sim + store only; we serve our own stdio instance below
  const log = createLogger('error', () => {});
  const poller = createPoller({ client: h.platform, jobs: h.jobs, log, intervalMs: { min: 20, max: 20 } });
  closers.push(() => poller.close());
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const conn = connectStdio(
    () => buildServer({ config: h!.config, client: h!.platform, jobs: h!.jobs, poller, log }).server,
    stdin,
    stdout,
  );
  closers.push(() => conn.close());
  const pending = new Map<number, (m: Record<string, unknown>) => void>();
  let buf = '';
  stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      const m = JSON.parse(line) as Record<string, unknown>;
      if (typeof m.id === 'number') pending.get(m.id)?.(m);
    }
  });
  let id = 0;
  const rpc = (method: string, params: Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const n = ++id;
      pending.set(n, resolve);
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: n, method, params: { ...params, _meta: ENVELOPE } })}\n`);
    });
  const disc = await rpc('server/discover', {});
  expect(disc.error).toBeUndefined();
  // A 5 s job: still running when the call answers.
  h.sim.jobs.scriptNext({ durationMs: 5000 });
  const r = await rpc('tools/call', {
    name: 'create_talking_video',
    arguments: { avatar_id: 'av_ava', voice_script: 'stdio tasks', voice_id: 'voice_en_rachel' },
  });
  const result = r.result as Record<string, unknown>;
  expect((result.structuredContent as { status?: string }).status).toBe('submitted');
  expect(result.resultType).toBe('task');
});
