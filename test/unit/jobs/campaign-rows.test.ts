/**
 * list_jobs' campaign row from stored item records (src/jobs/campaign-rows.ts): the totals a person is shown, and
 * fail closed on the quote — one item without a published price makes the whole total unbounded.
 */
import { describe, expect, it } from 'vitest';
import { campaignRow, groupCampaigns } from '../../../src/jobs/campaign-rows.js';
import { campaignFromRecords } from '../../../src/jobs/campaign-view.js';
import { estimate } from '../../../src/jobs/envelope.js';
import type { JobRecord } from '../../../src/jobs/store.js';

const item = (index: number, p: Partial<JobRecord>): JobRecord => ({
  id: `i${index}`,
  handle: `actor_video:j${index}`,
  tool: 'create_talking_video',
  kind: 'actor_video',
  fingerprint: `f${index}`,
  summary: 's',
  estimate: estimate(100, 'spec', { bounded: true }),
  consent: 'token',
  outcome: 'submitted',
  status: 'completed',
  requestId: undefined,
  remote: undefined,
  outputs: [{ url: `https://cdn.example/${index}.mp4`, media: 'video' }],
  reason: undefined,
  creditsCharged: 100,
  creditsRefunded: undefined,
  originalUrl: undefined,
  owner: 'alice',
  campaign: {
    id: 'c1',
    fingerprint: 'cf',
    index,
    total: 3,
    input: {},
    request: { route: '/video/generate', body: {} },
    varied: { avatar_id: `av_${index}` },
    sendBy: '2026-01-01T01:00:00.000Z',
  },
  createdAt: `2026-01-01T00:00:0${index}.000Z`,
  updatedAt: `2026-01-01T00:00:0${index}.000Z`,
  ...p,
});

const row = (records: JobRecord[]) => campaignRow(campaignFromRecords('c1', records), records);

describe('campaignRow', () => {
  it('sums quotes, charges and refunds; names failed items; k of N done; the oldest item is the start', () => {
    const r = row([
      item(2, { status: 'failed', outcome: 'submitted', reason: 'face not found', creditsRefunded: 100 }),
      item(0, {}),
      item(1, { status: 'processing', outputs: [], creditsCharged: undefined }),
    ]);
    expect(r.status).toBe('processing');
    expect(r.summary).toBe(
      'Campaign of 3 items: 2 of 3 done (1 completed, 1 failed or released); quote 300, charged 200, refunded 100',
    );
    expect(r.estimate).toMatchObject({ credits: 300, bounded: true });
    expect(r.campaign.charged_total).toBe(100);
    expect(r.reason).toBe('items[2] failed: face not found');
    expect(r.createdAt).toBe('2026-01-01T00:00:00.000Z');
  });

  it('one unbounded item quote makes the total unbounded (fail closed)', () => {
    const r = row([item(0, {}), item(1, { estimate: estimate(50, 'per-call ceiling', { bounded: false }) })]);
    expect(r.estimate).toMatchObject({ credits: 150, bounded: false });
  });

  it('a single call sent as a bundle of one (held for approval) is a job row, a campaign of one item a campaign row', async () => {
    const call = item(0, { fingerprint: 'cf', campaign: { ...item(0, {}).campaign!, total: 1 } });
    const one = item(1, { campaign: { ...item(1, {}).campaign!, id: 'c2', total: 1 } });
    const jobs = { bundleItems: async (id: string) => [call, one].filter((r) => r.campaign?.id === id) };
    const entries = await groupCampaigns([call, one], jobs, undefined);
    expect(entries.map((e) => ('job' in e ? ['job', e.job.id] : ['campaign', e.campaign.campaign.campaign]))).toEqual([
      ['job', 'i0'],
      ['campaign', 'c2'],
    ]);
  });
});
