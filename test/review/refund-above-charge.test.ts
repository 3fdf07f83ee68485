/**
 * Issue 27: the store's spend triggers (schema 7) refuse a refund above the charge. A platform answer that
 * reports one (a failed upscale: nothing charged, the reservation "refunded") must still record the job's final
 * status: the poller writes the refund up to the charge, never the raw figure that would fail the whole write.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { estimate } from '../../src/jobs/envelope.js';
import type { JobRef } from '../../src/jobs/handle.js';
import { createPoller } from '../../src/jobs/poller.js';
import { silentLogger } from '../../src/log.js';
import { newRecord, type TestDir, testDir } from '../helpers/store-helpers.js';
import { fakeClient, ok } from '../unit/jobs/fake-client.js';

let t: TestDir | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

const upRef: JobRef = { kind: 'upscale', id: 'v1', projectId: 'p1', videoType: 'video', billingId: 'b1' };

async function failedUpscaleReporting(figures: { credits_charged?: number; credits_refunded: number }) {
  t = await testDir();
  const jobs = await t.open();
  const rec = await jobs.track(
    newRecord({
      tool: 'upscale_video',
      kind: 'upscale',
      estimate: estimate(300, 'quote'),
      handle: 'upscale:video:p1:v1:b1',
    }),
  );
  await jobs.observe(rec.id, { outcome: 'submitted', status: 'processing' });
  const status = vi
    .fn()
    .mockResolvedValue(ok({ id: 'v1', billing_id: 'b1', status: 'failed', error: 'no', ...figures }));
  const poller = createPoller({ client: fakeClient({ upscale: { status } }), jobs, log: silentLogger });
  await poller.read(upRef);
  poller.close();
  return { jobs, after: await jobs.get(rec.id) };
}

describe('a refund above the charge, as the platform reports it', () => {
  it('charged 0, refunded 300: the failed status is recorded, the refund counted up to the charge', async () => {
    const { jobs, after } = await failedUpscaleReporting({ credits_charged: 0, credits_refunded: 300 });
    expect(after).toMatchObject({ status: 'failed', creditsCharged: 0, creditsRefunded: 0 });
    expect(await jobs.spendSince(new Date(0))).toBe(0);
  });

  it('no charge reported, refunded 300: failed is recorded and the quote still counts (fail closed)', async () => {
    const { jobs, after } = await failedUpscaleReporting({ credits_refunded: 300 });
    expect(after?.status).toBe('failed');
    expect(after?.creditsRefunded ?? 0).toBe(0);
    expect(await jobs.spendSince(new Date(0))).toBe(300);
  });
});
