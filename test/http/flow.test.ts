/**
 * The paid flow over Streamable HTTP against the sandbox: quote → confirm with the token → wait until done,
 * and consent through an elicitation form, which needs the stateful session (mcp-notes 0.7).
 */
import type { ElicitRequest } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type HttpFixture, sc, startHttpFixture, TOKEN_A, TOKEN_B } from './helpers.js';

let f: HttpFixture;
beforeAll(async () => {
  f = await startHttpFixture({ confirm: { mode: 'always' } });
});
afterAll(() => f.close());
beforeEach(() => f.sim.log.clear());

const GENERATE = { method: 'POST', path: '/video/generate' } as const;

describe('paid flow over HTTP', () => {
  it('quote → confirm → wait, with nothing sent before the confirmation', async () => {
    const c = await f.connect(TOKEN_A);
    const args = { avatar_id: 'av_ava', voice_script: 'Hello from chat-ops.' };
    const quote = sc(await c.call('create_talking_video', args));
    expect(quote.status).toBe('confirmation_required');
    expect(quote.confirmation_token).toEqual(expect.any(String));
    expect(f.sim.log.count(GENERATE)).toBe(0);

    const created = sc(
      await c.call('create_talking_video', { ...args, confirmation_token: quote.confirmation_token as string }),
    );
    expect(created.status).toBe('submitted');
    expect(f.sim.log.count(GENERATE)).toBe(1);

    let status = '';
    let outputs: unknown[] = [];
    for (let i = 0; i < 10 && status !== 'completed'; i++) {
      const w = sc(await c.call('wait_for_jobs', { handles: [created.handle], max_wait_s: 10 }));
      const job = (w.jobs as { status: string; outputs?: unknown[] }[])[0]!;
      status = job.status;
      outputs = job.outputs ?? [];
    }
    expect(status).toBe('completed');
    expect(outputs.length).toBeGreaterThan(0);
    // The token is single use.
    const reuse = sc(
      await c.call('create_talking_video', { ...args, confirmation_token: quote.confirmation_token as string }),
    );
    expect(reuse.status).not.toBe('submitted');
    expect(f.sim.log.count(GENERATE)).toBe(1);
  });

  it('asks a client that declares elicitation; accept submits the job', async () => {
    const asked: ElicitRequest[] = [];
    const c = await f.connect(TOKEN_B, {
      onElicit: async (req) => {
        asked.push(req);
        return { action: 'accept', content: { confirm: true } };
      },
    });
    const r = sc(await c.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Elicited over HTTP.' }));
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(asked[0]!.params)).toMatch(/credits/);
    expect(r.status).toBe('submitted');
    expect(f.sim.log.count(GENERATE)).toBe(1);
  });

  it('decline sends nothing', async () => {
    const c = await f.connect(TOKEN_B, { onElicit: async () => ({ action: 'decline' }) });
    const r = sc(await c.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Declined over HTTP.' }));
    expect(r.status).toBe('declined');
    expect(f.sim.log.count(GENERATE)).toBe(0);
  });
});
