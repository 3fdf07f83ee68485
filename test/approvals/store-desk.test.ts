/**
 * The desk over the real stores: every carrier's decision goes through the store's transaction and the real
 * rule; `onDecided` fires once, for the decision that closed the approval, and never for a refusal.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { approvalHandle, newApprovalId, parseApprovalHandle } from '../../src/approvals/handle.js';
import { type ApprovalClosed, storeApprovalDesk } from '../../src/approvals/store-desk.js';
import { UNKNOWN_APPROVAL } from '../../src/approvals/wording.js';
import type { ApprovalRecord } from '../../src/store/approval-types.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { HOUR, newApproval, T0 } from '../store/approvals-suite.js';
import { createTestSchema, dropTestDatabases } from '../store/pg-helper.js';

afterAll(dropTestDatabases);

const card = {
  tool: 'create_actor_video',
  price: 'at most 400 credits',
  bounded: true,
  credits: 400,
  basis: 'test',
  summary: 'a video',
  fields: [],
};

function recorder() {
  const calls: { approval: ApprovalRecord; outcome: ApprovalClosed }[] = [];
  return {
    calls,
    onDecided: (approval: ApprovalRecord, outcome: ApprovalClosed) => void calls.push({ approval, outcome }),
  };
}

describe('storeApprovalDesk', () => {
  it('refuses the requester, the unlisted and the unknown; the approval fires onDecided once; later ones are refused', async () => {
    const store = await openSqliteStore(mkdtempSync(join(tmpdir(), 'genplat-desk-')));
    try {
      const rec = recorder();
      const desk = storeApprovalDesk(store, { onDecided: rec.onDecided, now: () => T0 + HOUR });
      const a = await store.createApproval(newApproval({ request: { card } }));
      expect(await desk.decideAs(a.id, { id: 'token:alice', carrier: 'tool' }, 'approve')).toMatchObject({
        ok: false,
        reason: 'requester',
      });
      expect(await desk.decideAs(a.id, { id: 'token:bob', carrier: 'tool' }, 'approve')).toMatchObject({
        ok: false,
        reason: 'not_listed',
      });
      expect(await desk.decideAs(newApprovalId(), { id: 'token:lead', carrier: 'tool' }, 'approve')).toEqual({
        ok: false,
        reason: 'unknown',
        message: UNKNOWN_APPROVAL,
      });
      expect(rec.calls).toEqual([]);
      const ok = await desk.decideAs(a.id, { id: 'token:lead', name: 'Lead', carrier: 'app' }, 'approve', 'fine');
      expect(ok).toMatchObject({ ok: true, state: 'approved' });
      expect(rec.calls).toHaveLength(1);
      expect(rec.calls[0]?.outcome).toMatchObject({
        state: 'approved',
        decision: { by: 'token:lead', carrier: 'app' },
      });
      expect(rec.calls[0]?.approval.request).toEqual({ card });
      // The page's entrance: same rule, and nothing fires again.
      expect(await desk.decide(a.id, { id: 'token:cfo', carrier: 'page' }, 'decline')).toMatchObject({ ok: false });
      expect(rec.calls).toHaveLength(1);
      expect(await desk.show(a.id)).toMatchObject({ state: 'approved', card, requester: { id: 'token:alice' } });
      const audit = await store.approvalAudit();
      expect(audit.at(-1)).toMatchObject({
        event: 'approve',
        approver: 'token:lead',
        approverName: 'Lead',
        carrier: 'app',
      });
    } finally {
      await store.close();
    }
  });

  it('the page: shows a pending approval as expired past its expiry; a decline fires onDecided declined', async () => {
    const store = await openSqliteStore(mkdtempSync(join(tmpdir(), 'genplat-desk-')));
    try {
      const rec = recorder();
      let now = T0 + HOUR;
      const desk = storeApprovalDesk(store, { onDecided: rec.onDecided, now: () => now });
      const a = await store.createApproval(newApproval({ request: { card } }));
      expect((await desk.show(a.id))?.approvers.map((p) => p.id)).toEqual(['token:cfo', 'token:lead']);
      expect((await desk.awaiting('token:cfo')).map((x) => x.id)).toEqual([a.id]);
      expect(await desk.decide(a.id, { id: 'token:cfo', carrier: 'page' }, 'decline')).toEqual({
        ok: true,
        state: 'declined',
      });
      expect(rec.calls.map((c) => c.outcome.state)).toEqual(['declined']);
      const late = await store.createApproval(newApproval({ request: { card } }));
      now = T0 + 25 * HOUR;
      expect((await desk.show(late.id))?.state).toBe('expired');
      expect(await desk.decide(late.id, { id: 'token:cfo', carrier: 'page' }, 'approve')).toMatchObject({ ok: false });
      expect(rec.calls).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('two instances (PostgreSQL) deciding one approval at once: onDecided fires once in the whole fleet', async () => {
    const url = await createTestSchema();
    const [s1, s2] = [await openPostgresStore(url), await openPostgresStore(url)];
    try {
      const rec = recorder();
      const desks = [s1, s2].map((s) => storeApprovalDesk(s, { onDecided: rec.onDecided, now: () => T0 + HOUR }));
      for (let i = 0; i < 5; i++) {
        const a = await s1.createApproval(newApproval());
        const outs = await Promise.all(
          desks.flatMap((d) =>
            ['token:lead', 'token:cfo'].map((who) => d.decideAs(a.id, { id: who, carrier: 'tool' }, 'approve')),
          ),
        );
        expect(outs.filter((o) => o.ok)).toHaveLength(1);
      }
      expect(rec.calls).toHaveLength(5);
    } finally {
      await s1.close();
      await s2.close();
    }
  });

  it('expire: turns each overdue approval expired once and calls onExpired for it once, never for a decided one', async () => {
    const store = await openSqliteStore(mkdtempSync(join(tmpdir(), 'genplat-desk-')));
    try {
      let now = T0 + HOUR;
      const expired: string[] = [];
      const desk = storeApprovalDesk(store, {
        onDecided: () => {},
        onExpired: (a) => void expired.push(a.id),
        now: () => now,
      });
      const decided = await store.createApproval(newApproval({ expiresAt: T0 + 2 * HOUR }));
      const overdue = await store.createApproval(newApproval({ expiresAt: T0 + 2 * HOUR }));
      const later = await store.createApproval(newApproval({ expiresAt: T0 + 48 * HOUR }));
      await desk.decideAs(decided.id, { id: 'token:lead', carrier: 'tool' }, 'approve');
      expect(await desk.expire()).toEqual([]);
      now = T0 + 3 * HOUR;
      expect(await desk.expire()).toEqual([overdue.id]);
      expect(await desk.expire()).toEqual([]);
      expect(expired).toEqual([overdue.id]);
      expect((await store.approval(later.id))?.state).toBe('pending');
      expect((await store.approval(decided.id))?.state).toBe('approved');
    } finally {
      await store.close();
    }
  });

  it('handles: approval:<uuid> round-trips; anything else is not a handle', () => {
    const id = newApprovalId();
    expect(parseApprovalHandle(approvalHandle(id))).toBe(id);
    expect(parseApprovalHandle(` APPROVAL:${id.toUpperCase()} `)).toBe(id);
    expect(parseApprovalHandle(id)).toBeUndefined();
    expect(parseApprovalHandle('approval:123')).toBeUndefined();
    expect(parseApprovalHandle(`job:${id}`)).toBeUndefined();
  });
});
