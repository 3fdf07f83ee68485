/**
 * Review: a billable tool whose run() does a free read before its POST (shoppable tools re-read the packs).
 * If that read fails after the client's GET retries, nothing billable was sent: the ledger must say
 * `rejected`, not `unknown`, so an identical retry is not blocked as a possible duplicate. A failure of the
 * POST itself stays `unknown` (covered by test/invariants/fault-matrix.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/define-tool.js';
import { estimate } from '../../src/jobs/envelope.js';
import { type Harness, startHarness, structured } from '../helpers/harness.js';

const readThenPost = defineTool({
  name: 'read_then_post',
  title: 'Read then post',
  toolset: 'video',
  description: 'Test tool: reads the avatar list, then starts a talking video.',
  input: { avatar_id: z.string().describe('avatar id') },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  billable: {
    kind: () => 'actor_video' as const,
    estimate: async () => estimate(100, 'test'),
    summary: (i) => `video with ${i.avatar_id}`,
  },
  request: (input) => ({ route: '/video/generate', body: { avatar_id: input.avatar_id } }),
  async run(input, ctx) {
    await ctx.client.avatars.list();
    const { data, requestId } = await ctx.client.actors.generate({
      avatar_id: input.avatar_id,
      voice_script: 'Hello there.',
    });
    return { ref: { kind: 'actor_video' as const, id: data.id }, requestId, remote: { id: data.id } };
  },
});

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('a failed read before the POST', () => {
  it('records the submission as rejected (nothing sent) and lets an identical retry through', async () => {
    h = await startHarness({ tools: [readThenPost] });
    const avatar = h.sim.data.avatars[0]!.id;
    // More failures than the client's GET retries (3), so the read fails for good.
    h.sim.faults.add({ method: 'GET', path: '/video/avatars', kind: 'server_error', times: 10 });

    const first = await h.call('read_then_post', { avatar_id: avatar });
    expect(first.isError).toBe(true);
    expect(h.sim.log.count({ method: 'POST', path: '/video/generate' })).toBe(0);
    const [rec] = await h.jobs.list({});
    expect(rec?.outcome).toBe('rejected');

    h.sim.faults.clear();
    const second = await h.call('read_then_post', { avatar_id: avatar });
    expect(second.isError).toBeFalsy();
    expect(structured(second).status).toBe('submitted');
    expect(h.sim.log.count({ method: 'POST', path: '/video/generate' })).toBe(1);
  });
});
