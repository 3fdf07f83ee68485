/**
 * No job is lost to an odd platform id. The simulator's odd-id knob (`JobScript.id`) makes the platform
 * answer with ids no handle can carry (lone surrogates, too long once percent-encoded, too long at all) or
 * that only percent-encoding makes safe (control characters, ':' and '%'). Each submission still succeeds,
 * the ledger keeps the platform id and the request id, the envelope names a handle the job tools accept, and
 * get_job / wait_for_jobs follow the job to completion.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_HANDLE_LENGTH, MAX_ID_LENGTH, tryEncodeHandle } from '../../../src/jobs/handle.js';
import { BILLABLE_EXAMPLES } from '../../helpers/examples.js';
import { type Harness, startHarness, structured } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

const ODD_IDS: Record<string, string> = {
  'a lone high surrogate': 'job\uD800',
  'a lone low surrogate first': '\uDC00job',
  'percent-encoded past the handle limit': '漢'.repeat(200),
  'longer than any id field': 'x'.repeat(MAX_ID_LENGTH + 500),
  'control characters, colons and percent signs': 'a\u0000b\u001f:c%2F\u007f',
};

const CREATORS = [
  { tool: 'create_talking_video', kind: 'actor_video', args: { avatar_id: 'av_ava', voice_script: 'Odd ids.' } },
  { tool: 'run_model', kind: 'model', args: BILLABLE_EXAMPLES.run_model!.args },
] as const;

describe('a platform id no handle can carry still ends in the ledger and is followed', () => {
  for (const c of CREATORS) {
    for (const [what, odd] of Object.entries(ODD_IDS)) {
      it(`${c.tool}: ${what}`, async () => {
        // Platform ids are unique across kinds too; the suffix keeps each case's id odd in the same way.
        const id = `${odd}${c.kind}`;
        h.sim.jobs.scriptNext({ id });
        const args = typeof c.args === 'function' ? c.args(h.sim, Math.random()) : c.args;
        const r = await h.call(c.tool, {
          ...args,
          ...(c.tool === 'create_talking_video' ? { voice_script: `${what}.` } : {}),
        });
        const env = structured(r);
        expect(r.isError, JSON.stringify(env)).toBeFalsy();
        expect(env.status).toBe('submitted');
        expect(env.kind).toBe(c.kind);
        expect((env.remote as { id: string }).id).toBe(id);
        expect(env.request_id).toEqual(expect.any(String));
        // The handle: the job's own when one can carry the id, else the ledger's; both fit the tools' field.
        const handle = env.handle!;
        expect(handle.length).toBeLessThanOrEqual(MAX_HANDLE_LENGTH);
        const own = tryEncodeHandle(c.kind === 'model' ? { kind: 'model', id, media: 'video' } : { kind: c.kind, id });
        expect(handle).toEqual(own ?? expect.stringMatching(/^submission:/));
        expect(env.next_step).toContain(JSON.stringify([handle]));

        const rec = await h.jobs.get(handle);
        expect(rec).toMatchObject({ outcome: 'submitted', requestId: env.request_id, remote: { id }, ref: { id } });

        const waited = structured(await h.call('wait_for_jobs', { handles: [handle], max_wait_s: 20 }));
        const [job] = waited.jobs as { status: string; handle: string; remote: { id: string } }[];
        expect(job, JSON.stringify(job).slice(0, 600)).toMatchObject({ status: 'completed', handle, remote: { id } });
        expect(waited.pending).toEqual([]);

        const byHandle = structured(await h.call('get_job', { handle }));
        expect(byHandle).toMatchObject({ status: 'completed', handle });
        if (id.length <= MAX_ID_LENGTH) {
          const byId = structured(await h.call('get_job', { kind: c.kind, id }));
          expect(byId).toMatchObject({ status: 'completed', handle, remote: { id } });
        }
        // The ledger learned the outcome, and no second record appeared for the same job.
        const after = await h.jobs.list({});
        expect(after.filter((x) => x.ref?.id === id)).toHaveLength(1);
        expect(after.find((x) => x.ref?.id === id)?.outputs.length).toBeGreaterThan(0);
      });
    }
  }

  it('get_job by kind + id adopts a job started elsewhere whose id no handle can carry', async () => {
    const id = `ext\uD83D-${'é'.repeat(150)}`;
    h.sim.jobs.scriptNext({ id });
    // Started on the platform without us: straight to the simulator.
    const res = await fetch(`${h.sim.baseUrl}/video/generate`, {
      method: 'POST',
      headers: { 'x-api-key': h.sim.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ avatar_id: 'av_ava', voice_script: 'Started elsewhere.' }),
    });
    expect(res.status).toBe(200);
    const first = structured(await h.call('get_job', { kind: 'actor_video', id }));
    expect(first.status).not.toBe('unknown');
    expect(first.handle).toMatch(/^submission:/);
    const waited = structured(await h.call('wait_for_jobs', { handles: [first.handle!], max_wait_s: 20 }));
    expect((waited.jobs as { status: string }[])[0]?.status).toBe('completed');
    const again = structured(await h.call('get_job', { kind: 'actor_video', id }));
    expect(again.handle).toBe(first.handle);
  });
});
