/**
 * The paid flow over stateless Streamable HTTP against the sandbox, in the run's era: quote → confirm with the
 * token → wait until done, and consent through the form where the era can carry it.
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

  // One consent decision, carried per era: a 2026-07-28 client gets the form as `input_required` (its answer
  // comes back with a signed requestState, so any instance can continue it); a 2025 client over stateless HTTP
  // has no session to push `elicitation/create` on, so it gets the confirmation-token flow (mcp-notes 6.1).
  it('a client that declares elicitation: 2026 is asked through input_required, 2025 gets the token flow', async () => {
    const asked: ElicitRequest[] = [];
    const c = await f.connect(TOKEN_B, {
      onElicit: async (req) => {
        asked.push(req);
        return { action: 'accept', content: { confirm: true } };
      },
    });
    const r = sc(await c.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Elicited over HTTP.' }));
    if (c.era === 'modern') {
      expect(asked).toHaveLength(1);
      expect(JSON.stringify(asked[0]!.params)).toMatch(/credits/);
      expect(r.status).toBe('submitted');
      expect(f.sim.log.count(GENERATE)).toBe(1);
    } else {
      expect(asked).toHaveLength(0);
      expect(r.status).toBe('confirmation_required');
      expect(r.confirmation_token).toEqual(expect.any(String));
      expect(f.sim.log.count(GENERATE)).toBe(0);
    }
  });

  it('decline sends nothing (2026: the form; 2025: no token, nothing submitted)', async () => {
    const asked: ElicitRequest[] = [];
    const c = await f.connect(TOKEN_B, {
      onElicit: async (req) => {
        asked.push(req);
        return { action: 'decline' };
      },
    });
    const r = sc(await c.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Declined over HTTP.' }));
    expect(r.status).toBe(c.era === 'modern' ? 'declined' : 'confirmation_required');
    expect(asked).toHaveLength(c.era === 'modern' ? 1 : 0);
    expect(f.sim.log.count(GENERATE)).toBe(0);
  });
});
