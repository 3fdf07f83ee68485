/** A PlatformClient whose status reads are scripted per test; every other call throws (unexpected here). */
import { vi } from 'vitest';
import type { PlatformClient } from '../../../src/client/types.js';
import { jobKey, recordRef } from '../../../src/jobs/handle.js';
import type { JobRecord, JobStore, NewJobRecord } from '../../../src/jobs/store.js';

type Fn = (...args: any[]) => Promise<any>;

export function fakeClient(overrides: Partial<Record<string, Record<string, Fn>>> = {}): PlatformClient {
  const unexpected = (name: string) => vi.fn(async () => Promise.reject(new Error(`unexpected call ${name}`)));
  const area = (name: string, fns: string[]) =>
    Object.fromEntries(fns.map((f) => [f, overrides[name]?.[f] ?? unexpected(`${name}.${f}`)]));
  return {
    avatars: area('avatars', ['list', 'createCustom']),
    voices: area('voices', ['list']),
    actors: area('actors', ['generate', 'status']),
    products: area('products', ['generate', 'status']),
    ads: area('ads', ['packs', 'createImage', 'createVideo', 'imageStatus', 'videoStatus']),
    library: area('library', ['templates', 'categories', 'generate', 'status']),
    gestures: area('gestures', ['generate', 'status']),
    enterprise: area('enterprise', ['models', 'generate', 'status']),
    family: area('family', ['generate', 'status']),
    upscale: area('upscale', ['quote', 'generate', 'status']),
  } as unknown as PlatformClient;
}

export const ok = <T>(data: T, requestId = 'req-1') => ({ data, requestId });

/** An in-memory JobStore: enough for the poller (get/update) and list tools. */
export function memoryStore(): JobStore & { records: JobRecord[] } {
  const records: JobRecord[] = [];
  let n = 0;
  const find = (k: string) => [...records].reverse().find((r) => r.id === k || r.handle === k);
  const track = async (rec: NewJobRecord) => {
    const at = new Date().toISOString();
    const r: JobRecord = {
      id: `l${++n}`,
      handle: rec.handle ?? `submission:l${n}`,
      status: rec.status ?? 'submitted',
      outcome: rec.outcome ?? 'pending',
      remote: rec.remote,
      originalUrl: rec.originalUrl,
      requestId: undefined,
      outputs: [],
      reason: undefined,
      creditsCharged: undefined,
      creditsRefunded: undefined,
      createdAt: at,
      updatedAt: at,
      ...rec,
    } as JobRecord;
    records.push(r);
    return r;
  };
  const patch = async (id: string, patch: Partial<JobRecord>) => {
    const r = find(id);
    if (!r) throw new Error('unknown id');
    Object.assign(r, patch, { updatedAt: new Date().toISOString() });
    return r;
  };
  return {
    records,
    description: 'memory',
    track,
    async admit(rec) {
      return { admitted: true as const, record: await track(rec) };
    },
    async admitBundle(items) {
      // A single call is a bundle of one `pending` item; campaigns (queued items) are tested on the real stores.
      if (items.some((i) => i.outcome !== 'pending')) throw new Error('campaigns are tested on the real stores');
      const records = [];
      for (const item of items) records.push(await track(item));
      return { admitted: true as const, records };
    },
    claimItem: async () => undefined,
    bundleItems: async () => [],
    queuedBundles: async () => [],
    // Admits everything (these tests are about polling): no facts to refuse with.
    readAdmissionFacts: async () => ({ now: new Date(), spentToday: 0 }),
    settle: (id, p) => patch(id, p as Partial<JobRecord>),
    observe: (id, p) => patch(id, p as Partial<JobRecord>),
    auditEvents: async () => [],
    // Approvals are tested on the real stores (test/store/approvals-suite.ts).
    createApproval: async () => {
      throw new Error('approvals are tested on the real stores');
    },
    approval: async () => undefined,
    decideApproval: async () => ({ found: false }),
    approvalsAwaiting: async () => [],
    expireApprovals: async () => [],
    approvalAudit: async () => [],
    // The event outbox is tested on the real stores (test/events/).
    events: async () => [],
    fanOutEvents: async () => undefined,
    leaseDeliveries: async () => [],
    recordDelivery: async () => {},
    deliveryLog: async () => [],
    deliverySummary: async () => [],
    async get(k) {
      return find(k);
    },
    async getByRef(ref) {
      if (ref.kind === 'submission') return records.find((r) => r.id === ref.id);
      const key = jobKey(ref);
      return [...records].reverse().find((r) => {
        const own = recordRef(r);
        return own !== undefined && own.kind !== 'submission' && jobKey(own) === key;
      });
    },
    async list(f = {}) {
      return [...records]
        .reverse()
        .filter((r) => (f.owner === undefined || r.owner === f.owner) && (!f.status || f.status.includes(r.status)))
        .slice(0, f.limit ?? 100);
    },
    async spendSince(_since, owner) {
      return records
        .filter((r) => r.owner === owner && r.outcome !== 'rejected')
        .reduce((s, r) => s + (r.creditsCharged ?? r.estimate?.credits ?? 0) - (r.creditsRefunded ?? 0), 0);
    },
    async consentKey() {
      return Buffer.alloc(32);
    },
    async tryLease() {
      return true;
    },
    async schemaVersion() {
      return 2;
    },
    async close() {},
  };
}
