/**
 * The approval methods of the store (issue 28 items 5, 6, 8), run unchanged on both backends
 * (approvals-sqlite.test.ts, approvals-postgres.test.ts). The decision rule is the real one
 * (src/approvals/decide.ts `judgeDecision`), passed in as the paid path will.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { judgeDecision, verifiedCallerId } from '../../src/approvals/decide.js';
import type {
  ApprovalDecisionRecord,
  ApprovalJudge,
  ApprovalRecord,
  NewApprovalRecord,
} from '../../src/store/approval-types.js';
import type { Store } from '../../src/store/types.js';

export interface ApprovalBackend {
  /** A fresh, empty store location; `open` may be called again for a second instance on the same location. */
  create(): Promise<{ open(): Promise<Store>; exec(sql: string): Promise<void>; prefix: string }>;
}

export const T0 = Date.parse('2026-03-10T12:00:00.000Z');
export const HOUR = 3_600_000;

export const judge: ApprovalJudge<ReturnType<typeof judgeDecision>> = (a: ApprovalRecord, d, now) =>
  judgeDecision(a, { by: verifiedCallerId(d.by), decision: d.decision }, now);

export function newApproval(over: Partial<NewApprovalRecord> = {}): NewApprovalRecord {
  return {
    id: randomUUID(),
    requester: 'token:alice',
    requesterName: 'Alice',
    tool: 'create_actor_video',
    request: { fingerprint: 'fp-1', body: { script: 'hello' }, quote: { credits: 400 } },
    requirements: [{ rule: 'big spend', approvers: ['token:lead', 'token:cfo'], required: 1 }],
    approvers: ['token:cfo', 'token:lead'],
    rules: ['big spend'],
    quoteCredits: 400,
    createdAt: T0,
    expiresAt: T0 + 24 * HOUR,
    ...over,
  };
}

export function decision(by: string, over: Partial<ApprovalDecisionRecord> = {}): ApprovalDecisionRecord {
  return { by, decision: 'approve', carrier: 'tool', at: T0 + HOUR, ...over };
}

export function approvalSuite(name: string, backend: ApprovalBackend): void {
  describe(`${name} store: approvals`, () => {
    it('keeps an approval pending with its exact request, and lists it for its approvers only', async () => {
      const loc = await backend.create();
      const s = await loc.open();
      try {
        const rec = newApproval({ campaignId: 'cmp-1' });
        const created = await s.createApproval(rec);
        expect(created).toMatchObject({ id: rec.id, state: 'pending', decisions: [], campaignId: 'cmp-1' });
        expect((await s.approval(rec.id))?.request).toEqual(rec.request);
        expect(await s.approval(randomUUID())).toBeUndefined();
        const now = new Date(T0 + HOUR);
        expect((await s.approvalsAwaiting('token:lead', now)).map((a) => a.id)).toEqual([rec.id]);
        expect(await s.approvalsAwaiting('token:alice', now)).toEqual([]);
        expect(await s.approvalsAwaiting('token:bob', now)).toEqual([]);
        // Past its expiry it is no longer awaited, even before expireApprovals ran.
        expect(await s.approvalsAwaiting('token:lead', new Date(T0 + 25 * HOUR))).toEqual([]);
      } finally {
        await s.close();
      }
    });

    it('decides through the judge: refusals write nothing; an approval closes it once; a second decision is refused', async () => {
      const loc = await backend.create();
      const s = await loc.open();
      try {
        const rec = await s.createApproval(newApproval());
        for (const who of ['token:alice', 'token:bob']) {
          const r = await s.decideApproval(rec.id, decision(who), judge);
          expect(r).toMatchObject({ found: true, changed: false, verdict: { ok: false } });
        }
        expect((await s.approval(rec.id))?.decisions).toEqual([]);
        const ok = await s.decideApproval(rec.id, decision('token:lead', { name: 'Lead', carrier: 'slack' }), judge);
        expect(ok).toMatchObject({ found: true, changed: true, verdict: { ok: true, state: 'approved' } });
        if (!ok.found) throw new Error('unreachable');
        expect(ok.approval).toMatchObject({ state: 'approved', closedAt: T0 + HOUR });
        expect(ok.approval.decisions).toEqual([
          { by: 'token:lead', name: 'Lead', decision: 'approve', carrier: 'slack', at: T0 + HOUR },
        ]);
        const again = await s.decideApproval(rec.id, decision('token:lead', { at: T0 + 2 * HOUR }), judge);
        expect(again).toMatchObject({ changed: false, verdict: { ok: false, reason: 'closed' } });
        const other = await s.decideApproval(rec.id, decision('token:cfo', { decision: 'decline' }), judge);
        expect(other).toMatchObject({ changed: false, verdict: { ok: false, reason: 'closed' } });
        expect((await s.approval(rec.id))?.decisions).toHaveLength(1);
        expect(await s.decideApproval(randomUUID(), decision('token:lead'), judge)).toEqual({ found: false });
      } finally {
        await s.close();
      }
    });

    it('two approvals required: the first keeps it pending, a person cannot decide twice, the second approves', async () => {
      const loc = await backend.create();
      const s = await loc.open();
      try {
        const rec = await s.createApproval(
          newApproval({ requirements: [{ rule: 'big spend', approvers: ['token:lead', 'token:cfo'], required: 2 }] }),
        );
        const first = await s.decideApproval(rec.id, decision('token:lead'), judge);
        expect(first).toMatchObject({ changed: false, verdict: { ok: true, state: 'pending' } });
        const twice = await s.decideApproval(rec.id, decision('token:lead', { decision: 'decline' }), judge);
        expect(twice).toMatchObject({ changed: false, verdict: { ok: false, reason: 'already_decided' } });
        const second = await s.decideApproval(rec.id, decision('token:cfo'), judge);
        expect(second).toMatchObject({ changed: true, verdict: { ok: true, state: 'approved' } });
      } finally {
        await s.close();
      }
    });

    it('a decline closes it declined; an expired approval refuses decisions and expires once, audited', async () => {
      const loc = await backend.create();
      const s = await loc.open();
      try {
        const declined = await s.createApproval(newApproval());
        const d = await s.decideApproval(declined.id, decision('token:cfo', { decision: 'decline' }), judge);
        expect(d).toMatchObject({ changed: true, approval: { state: 'declined' } });

        const old = await s.createApproval(newApproval({ expiresAt: T0 + HOUR }));
        const late = await s.decideApproval(old.id, decision('token:lead', { at: T0 + HOUR }), judge);
        expect(late).toMatchObject({ changed: false, verdict: { ok: false, reason: 'expired' } });
        expect(await s.expireApprovals(new Date(T0 + HOUR / 2))).toEqual([]);
        expect(await s.expireApprovals(new Date(T0 + 2 * HOUR))).toEqual([old.id]);
        expect(await s.expireApprovals(new Date(T0 + 3 * HOUR))).toEqual([]);
        expect(await s.approval(old.id)).toMatchObject({ state: 'expired', closedAt: T0 + 2 * HOUR });
        expect(await s.approval(declined.id)).toMatchObject({ state: 'declined' });

        const audit = await s.approvalAudit();
        expect(audit.map((e) => [e.approvalId, e.event, e.approver ?? null, e.state])).toEqual([
          [declined.id, 'requested', null, 'pending'],
          [declined.id, 'decline', 'token:cfo', 'declined'],
          [old.id, 'requested', null, 'pending'],
          [old.id, 'expired', null, 'expired'],
        ]);
        expect(audit[1]).toMatchObject({
          requester: 'token:alice',
          requesterName: 'Alice',
          carrier: 'tool',
          rules: ['big spend'],
          quoteCredits: 400,
          tool: 'create_actor_video',
        });
        expect(await s.approvalAudit({ requester: 'token:bob' })).toEqual([]);
        expect(await s.approvalAudit({ since: new Date(T0 + 1) })).toEqual([]);
      } finally {
        await s.close();
      }
    });

    it('decisions and the approval audit are append-only; an approval row cannot be rewritten', async () => {
      const loc = await backend.create();
      const s = await loc.open();
      try {
        const rec = await s.createApproval(newApproval());
        await s.decideApproval(rec.id, decision('token:cfo'), judge);
        const p = loc.prefix;
        await expect(loc.exec(`UPDATE ${p}approval_decisions SET decision = 'decline'`)).rejects.toThrow(/append-only/);
        await expect(loc.exec(`DELETE FROM ${p}approval_audit`)).rejects.toThrow(/append-only/);
        await expect(loc.exec(`UPDATE ${p}approvals SET state = 'pending'`)).rejects.toThrow(/only a pending approval/);
        const other = await s.createApproval(newApproval());
        await expect(
          loc.exec(`UPDATE ${p}approvals SET requester = 'token:cfo' WHERE id = '${other.id}'`),
        ).rejects.toThrow(/only a pending approval/);
        // A second row for one person is refused by the key, whatever a bug would do.
        await expect(
          loc.exec(
            `INSERT INTO ${p}approval_decisions (approval_id, decider, decision, carrier, at) VALUES ('${rec.id}', 'token:cfo', 'approve', 'tool', 1)`,
          ),
        ).rejects.toThrow();
      } finally {
        await s.close();
      }
    });
  });
}
