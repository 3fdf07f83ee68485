/**
 * list_jobs with a campaign (issue 21 item 4): one row per campaign (handle `campaign:<id>`, "k of N done", the
 * total quote, charged and refunded), its items hidden behind it; plain jobs stay rows of their own. Through a
 * real MCP client against the simulator.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, structured } from '../helpers/harness.js';

const THREE = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Hot coffee at five pm.' } }],
  vary: { avatar_id: ['av_ava', 'av_marcus', 'av_lucia'] },
};

interface Row {
  handle: string;
  tool: string;
  status: string;
  summary: string;
  estimate?: { credits: number; bounded: boolean };
  credits_charged?: number;
  outputs: unknown[];
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function rows(args: Record<string, unknown> = {}): Promise<Row[]> {
  return (structured(await h!.call('list_jobs', args)) as unknown as { jobs: Row[] }).jobs;
}

describe('list_jobs: a campaign is one row', () => {
  it('shows campaign:<id> with k of N done and its totals; its items are not separate rows', async () => {
    h = await startHarness({ config: { confirm: { mode: 'always' }, maxCreditsPerDay: 10_000 } });
    const q = structured(await h.call('create_campaign', THREE));
    const s = structured(await h.call('create_campaign', { ...THREE, confirmation_token: q.confirmation_token }));
    const handle = s.handle as string;
    expect(handle).toMatch(/^campaign:/);
    const id = handle.slice('campaign:'.length);

    const running = await rows();
    expect(running.map((r) => r.handle)).toEqual([handle]);
    const row = running[0]!;
    expect(row.tool).toBe('create_campaign');
    expect(row.summary).toMatch(/^Campaign of 3 items: \d of 3 done/);
    expect(row.estimate).toMatchObject({ credits: (q.estimate as { credits: number }).credits, bounded: true });

    const waited = structured(await h.call('wait_for_jobs', { handles: [handle], max_wait_s: 30 }));
    expect(waited.done).toBe(true);
    const items = await h.jobs.bundleItems(id);
    const charged = items.reduce((n, r) => n + (r.creditsCharged ?? 0), 0);
    const refunded = items.reduce((n, r) => n + (r.creditsRefunded ?? 0), 0);

    const [done] = await rows();
    expect(done!.handle).toBe(handle);
    expect(done!.status).toBe('completed');
    expect(done!.summary).toContain('3 of 3 done (3 completed, 0 failed or released)');
    expect(done!.summary).toContain(`charged ${charged}, refunded ${refunded}`);
    expect(done!.credits_charged).toBe(charged - refunded);
    expect(done!.outputs).toHaveLength(items.flatMap((r) => r.outputs).length);
    // No item's own handle leaks into the list.
    for (const r of items) expect((await rows()).some((x) => x.handle === r.handle)).toBe(false);
    // The status filter matches the campaign's own status.
    expect((await rows({ status: 'completed' })).map((r) => r.handle)).toEqual([handle]);
    expect(await rows({ status: 'processing' })).toEqual([]);
  });

  it('a plain job keeps its own row next to the campaign row', async () => {
    h = await startHarness({ config: { confirm: { mode: 'always' }, maxCreditsPerDay: 10_000 } });
    const q = structured(await h.call('create_campaign', THREE));
    const s = structured(await h.call('create_campaign', { ...THREE, confirmation_token: q.confirmation_token }));
    const single = { avatar_id: 'av_kenji', voice_script: 'One more.' };
    const jq = structured(await h.call('create_talking_video', single));
    const job = structured(
      await h.call('create_talking_video', { ...single, confirmation_token: jq.confirmation_token }),
    );
    const handles = (await rows()).map((r) => r.handle);
    expect(handles).toHaveLength(2);
    expect(new Set(handles)).toEqual(new Set([s.handle, job.handle]));
  });
});
