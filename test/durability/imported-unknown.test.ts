/**
 * Issue 19: after importing a 0.1 state dir, an identical call to a 0.1 submission whose outcome is unknown
 * must not be sent again without `allow_duplicate`. 0.1 fingerprinted a call's arguments (`fingerprint01`);
 * today's fingerprint covers the exact request, so before the fix the guard never matched imported records.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { estimate } from '../../src/jobs/envelope.js';
import { fingerprint01 } from '../../src/paid/fingerprint.js';
import { startHarness, structured } from '../helpers/harness.js';
import { writeLedger01 } from '../helpers/ledger01.js';

const POST = { method: 'POST', path: '/video/generate' } as const;
const ARGS = { avatar_id: 'av_ava', voice_script: 'A call 0.1 sent, outcome unknown.' };
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('a 0.1 submission of unknown outcome, imported', () => {
  it('blocks an identical call (0 POSTs); allow_duplicate asks with the warning', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'genplat-01-'));
    dirs.push(dir);
    const ledger = writeLedger01(dir);
    const rec = ledger.recordIntent({
      tool: 'create_talking_video',
      kind: 'actor_video',
      fingerprint: fingerprint01('create_talking_video', { ...ARGS, voice_script: ` ${ARGS.voice_script} ` }),
      summary: 'talking video',
      estimate: estimate(100, 'fixed price'),
      consent: 'token',
      owner: undefined,
    });
    ledger.update(rec.id, { outcome: 'unknown', status: 'unknown', requestId: 'req-01-lost' });

    const h = await startHarness({ stateDir: dir });
    try {
      const r = await h.call('create_talking_video', ARGS);
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.content)).toMatch(/duplicate.*req-01-lost/s);
      expect(h.sim.log.count(POST)).toBe(0);

      const asked = structured(await h.call('create_talking_video', { ...ARGS, allow_duplicate: true }));
      expect(asked.status).toBe('confirmation_required');
      expect(String(asked.next_step)).toMatch(/req-01-lost/);
      expect(h.sim.log.count(POST)).toBe(0);
    } finally {
      await h.close();
    }
  });
});
