/**
 * A job belongs to its caller by identity (kind + platform id), not by the spelling of its handle: caller B
 * naming A's jobs by any alias (another media part in a `model:` handle, percent-encoding variants, a raw
 * `{kind, id}`, an upscale handle with the same billing id) gets the answer a job nobody has gets, the
 * platform is never asked, and nothing of A's shows in B's list_jobs or genplat://jobs.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BILLABLE_EXAMPLES } from '../helpers/examples.js';
import { type HttpFixture, sc, startHttpFixture, type TestClient, TOKEN_A, TOKEN_B, text } from './helpers.js';

let f: HttpFixture;
let a: TestClient;
let b: TestClient;
const handles: string[] = [];
let actorId: string;
let modelId: string;
let upscale: { id: string; project_id: string; billing_id: string };

/** Every character percent-encoded, upper or lower case hex: the same id to decodeURIComponent. */
const pct = (s: string, lower = false) =>
  [...s].map((c) => `%${c.charCodeAt(0).toString(16)[lower ? 'toLowerCase' : 'toUpperCase']()}`).join('');

beforeAll(async () => {
  f = await startHttpFixture({ confirm: { mode: 'never' } });
  a = await f.connect(TOKEN_A);
  b = await f.connect(TOKEN_B);
  const actor = sc(await a.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Owned by A.' }));
  actorId = (actor.remote as { id: string }).id;
  const model = sc(await a.call('run_model', BILLABLE_EXAMPLES.run_model!.args(f.sim)));
  modelId = (model.remote as { id: string }).id;
  // The upscale quote is informational (unbounded): confirmed with its token, as a user would.
  const upArgs = BILLABLE_EXAMPLES.upscale_video!.args(f.sim);
  const quoted = sc(await a.call('upscale_video', upArgs));
  const up = sc(await a.call('upscale_video', { ...upArgs, confirmation_token: quoted.confirmation_token }));
  upscale = up.remote as typeof upscale;
  for (const env of [actor, model, up]) {
    expect(env.status, JSON.stringify(env)).toBe('submitted');
    handles.push(env.handle!);
  }
});
afterAll(() => f.close());
beforeEach(() => f.sim.log.clear());

/** B's answer to get_job for these arguments, which must be the "no such job" error. */
async function refusedToB(args: Record<string, unknown>): Promise<string> {
  const r = await b.call('get_job', args);
  expect(r.isError, JSON.stringify(args)).toBe(true);
  expect(JSON.stringify(r)).not.toContain('Owned by A');
  // Same words whether the caller named the job by handle or by id.
  return text(r).replace(/"(handle|id)"/, '"FIELD"');
}

describe("B cannot reach A's jobs by any alias", () => {
  it('aliases of a model job, an actor video and an upscale attempt get the answer of a job nobody has', async () => {
    const aliases: Record<string, unknown>[] = [
      { handle: `model:any:${modelId}` },
      { handle: `model:image:${modelId}` },
      { handle: `model:video:${pct(modelId)}` },
      { kind: 'model', id: modelId },
      { kind: 'model', id: modelId, media: 'image' },
      { handle: `actor_video:${pct(actorId)}` },
      { handle: `actor_video:${pct(actorId, true)}` },
      { handle: ` actor_video:${actorId} ` },
      { kind: 'actor_video', id: actorId },
      // Another video, project and type around A's billing id: still A's upscale attempt.
      { handle: `upscale:product-in-hand:proj_other:vid_other:${upscale.billing_id}` },
      { handle: `upscale:video:${pct(upscale.project_id)}:${upscale.id}:${pct(upscale.billing_id, true)}` },
      {
        kind: 'upscale',
        id: 'vid_other',
        project_id: 'proj_other',
        video_type: 'gestures',
        billing_id: upscale.billing_id,
      },
    ];
    const nobody = await refusedToB({ handle: 'actor_video:job_nobody_has' });
    // Reading an id nobody has asks the platform once; every refusal below asks it nothing.
    f.sim.log.clear();
    for (const args of aliases) expect(await refusedToB(args), JSON.stringify(args)).toBe(nobody);
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it('a job whose id no handle can carry is refused to B by its ledger handle and by the id as the wire spells it', async () => {
    const odd = `odd\uD800${'é'.repeat(200)}`;
    f.sim.jobs.scriptNext({ id: odd });
    const env = sc(await a.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Odd and owned by A.' }));
    expect(env.status).toBe('submitted');
    expect(env.handle).toMatch(/^submission:/);
    f.sim.log.clear();
    const nobody = await refusedToB({ kind: 'actor_video', id: 'job_nobody_has' });
    f.sim.log.clear();
    // The platform reads a lone surrogate as U+FFFD, so that spelling names the same job.
    for (const args of [
      { handle: env.handle },
      { kind: 'actor_video', id: odd },
      { kind: 'actor_video', id: odd.replace('\uD800', '\uFFFD') },
    ]) {
      expect(await refusedToB(args), JSON.stringify(args)).toBe(nobody);
    }
    expect(f.sim.log.entries()).toHaveLength(0);
    expect(sc(await a.call('get_job', { kind: 'actor_video', id: odd })).handle).toBe(env.handle);
  });

  it('wait_for_jobs and genplat://jobs/{handle} refuse the aliases before anything is read', async () => {
    for (const alias of [`model:any:${modelId}`, `actor_video:${pct(actorId)}`]) {
      const r = await b.call('wait_for_jobs', { handles: ['actor_video:job_nobody_has', alias], max_wait_s: 1 });
      expect(r.isError, alias).toBe(true);
      expect(text(r)).toMatch(/handles\[1\].*no such job for this caller/);
      await expect(b.client.readResource({ uri: `genplat://jobs/${alias}` })).rejects.toThrow(
        /no such job for this caller/,
      );
    }
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it("nothing of A's shows in B's list_jobs or genplat://jobs, even after B's refused attempts", async () => {
    const listB = JSON.stringify(sc(await b.call('list_jobs')).jobs);
    const resB = JSON.stringify(await b.client.readResource({ uri: 'genplat://jobs' }));
    for (const s of [actorId, modelId, upscale.billing_id]) {
      expect(listB).not.toContain(s);
      expect(resB).not.toContain(s);
    }
  });

  it('A itself follows its jobs by the same aliases, and its record keeps their progress', async () => {
    const viaAlias = sc(await a.call('get_job', { handle: `model:any:${modelId}` }));
    expect(viaAlias.status).not.toBe('unknown');
    expect(viaAlias.estimate).toBeDefined(); // the ledger record was found through the alias
    const waited = sc(await a.call('wait_for_jobs', { handles: handles, max_wait_s: 20 }));
    expect((waited.jobs as { status: string }[]).map((j) => j.status)).toEqual(['completed', 'completed', 'completed']);
  });
});
