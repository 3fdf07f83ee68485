/**
 * Campaign items under the fault matrix (issue 21): every POST fault kind of the simulator hits the first
 * item of a campaign. Whatever the answer, every item is POSTed at most once; an item whose outcome is unknown
 * is never resent (not by the sender, not by a later sweep, not by the same call repeated); one the platform
 * definitely refused is reported failed with its reason, and its reservation stops counting.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FaultKind } from '../../src/sim/faults.js';
import { type Harness, startHarness, structured } from '../helpers/harness.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
const KINDS: FaultKind[] = [
  'server_error_after_accept',
  'server_error',
  'delay',
  'reset',
  'reset_after_accept',
  'malformed_json',
  'rate_limit',
  'unavailable',
];
const SIX = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Fault pitch.' } }],
  vary: { avatar_id: ['av_ava', 'av_marcus', 'av_lucia'], voice_id: ['voice_en_rachel', 'voice_en_james'] },
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function finished(id: string) {
  for (let i = 0; i < 500; i++) {
    const items = await h!.jobs.bundleItems(id);
    if (items.length > 0 && items.every((r) => r.outcome !== 'queued' && r.outcome !== 'pending')) return items;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('campaign did not finish');
}

describe('campaign items under every POST fault', () => {
  it.each(KINDS)(
    '%s on item 0: every item ≤ 1 POST, an unknown item is never resent',
    async (kind) => {
      h = await startHarness({ config: { confirm: { mode: 'never' } }, clientTimeoutMs: 2_000 });
      h.sim.faults.add({ method: 'POST', path: POSTS.path, kind, times: 1, delayMs: 4_000 });
      const r = structured(await h.call('create_campaign', SIX));
      const id = String(r.handle).replace(/^campaign:/, '');
      const items = await finished(id);
      // The simulator logs a delayed request when it answers (after the client gave up on it).
      // So the held one is waited for (an event, bounded generously) rather than slept through.
      await vi.waitFor(() => expect(h!.sim.log.count(POSTS)).toBeGreaterThanOrEqual(6), {
        timeout: 30_000,
        interval: 25,
      });
      const sent = h.sim.log.count(POSTS);
      // Each of the 6 items was POSTed exactly once: the faulted one too, never again.
      expect(sent).toBe(6);
      // Bodies are distinct per item: a repeat would show as a duplicate body.
      const bodies = h.sim.log
        .entries()
        .filter((e) => e.method === 'POST' && e.path === POSTS.path)
        .map((e) => JSON.stringify(e.body));
      expect(new Set(bodies).size).toBe(bodies.length);
      // A later sweep (a restart, another instance) sends only queued items: there are none; unknown stays unknown.
      expect(await h.jobs.queuedBundles()).toEqual([]);
      expect(h.sim.log.count(POSTS)).toBe(sent);
      for (const item of items) expect(['submitted', 'rejected', 'unknown']).toContain(item.outcome);
      const view = structured(await h.call('get_job', { handle: r.handle })) as unknown as {
        details: { campaign: { items: { status: string; reason?: string }[] } };
      };
      const first = view.details.campaign.items[0]!;
      if (items[0]!.outcome === 'unknown') expect(first.status).toBe('unknown');
      if (items[0]!.outcome === 'rejected') expect(first.reason).toBeTruthy();
    },
    60_000,
  );
});
