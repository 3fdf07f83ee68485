/**
 * The approval methods on PostgreSQL, and the fleet rule: two instances on one database deciding the same
 * approvals at once change each one's state exactly once, with one decision row per person.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres.js';
import { approvalSuite, decision, judge, newApproval } from './approvals-suite.js';
import { createTestSchema, dropTestDatabases, execOn } from './pg-helper.js';

afterAll(dropTestDatabases);

approvalSuite('PostgreSQL', {
  async create() {
    const url = await createTestSchema();
    return { open: () => openPostgresStore(url), exec: (sql) => execOn(url, sql), prefix: 'genplat_' };
  },
});

describe('PostgreSQL fleet: approvals', () => {
  it('two instances deciding the same approvals concurrently: one state change each, one decision row per person', async () => {
    const url = await createTestSchema();
    const a = await openPostgresStore(url);
    const b = await openPostgresStore(url);
    try {
      const people = ['token:lead', 'token:cfo', 'token:dan'];
      const approvals = [];
      for (let i = 0; i < 8; i++)
        approvals.push(
          await a.createApproval(
            newApproval({ requirements: [{ rule: 'big spend', approvers: people, required: 2 }], approvers: people }),
          ),
        );
      // Every person approves every approval twice, once through each instance, all at once.
      const attempts = approvals.flatMap((ap) =>
        people.flatMap((who) => [a, b].map((s) => s.decideApproval(ap.id, decision(who), judge))),
      );
      const results = await Promise.all(attempts);
      for (const ap of approvals) {
        const mine = results.filter((r) => r.found && r.approval.id === ap.id);
        expect(mine.filter((r) => r.found && r.changed)).toHaveLength(1);
        expect(mine.filter((r) => r.found && r.verdict.ok)).toHaveLength(2);
        const stored = await b.approval(ap.id);
        expect(stored?.state).toBe('approved');
        expect(stored?.decisions).toHaveLength(2);
        expect(new Set(stored?.decisions.map((d) => d.by)).size).toBe(2);
      }
      const audit = await a.approvalAudit();
      expect(audit.filter((e) => e.event === 'approve')).toHaveLength(2 * approvals.length);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
