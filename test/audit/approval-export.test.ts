/**
 * `genplat-mcp audit export` names the people of an approval (issue 28 item 8): one row per approval event
 * (requested, approve, decline, expired) with requester, approver, carrier, rules, times and campaign, from the
 * real store, in CSV and JSONL.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { storeApprovalDesk } from '../../src/approvals/store-desk.js';
import { runAuditExport } from '../../src/audit/cli.js';
import { AUDIT_FIELDS } from '../../src/audit/export.js';
import { loadConfig, parseCli } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { parseCsv } from '../helpers/csv.js';
import { HOUR, newApproval, T0 } from '../store/approvals-suite.js';

async function exportOf(stateDir: string, format: 'csv' | 'jsonl', user?: string): Promise<string> {
  const config = loadConfig(parseCli(['audit', 'export']), { GENPLAT_STATE_DIR: stateDir });
  let out = '';
  const code = await runAuditExport(config, { format, since: undefined, user }, createLogger('error'), (c) => {
    out += c;
  });
  expect(code).toBe(0);
  return out;
}

describe('audit export: approvals', () => {
  it('lists each approval event with the people, carrier, rules and campaign; CSV says the same as JSONL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genplat-audit-approvals-'));
    const store = await openSqliteStore(dir);
    let approvedId = '';
    try {
      const desk = storeApprovalDesk(store, { onDecided: () => {}, now: () => T0 + HOUR });
      const a = await store.createApproval(newApproval({ campaignId: 'cmp-7' }));
      approvedId = a.id;
      await desk.decideAs(a.id, { id: 'token:bob', carrier: 'tool' }, 'approve'); // refused: recorded nowhere
      await desk.decideAs(a.id, { id: 'token:lead', name: 'Lea Lead', carrier: 'slack' }, 'approve');
      const b = await store.createApproval(newApproval({ createdAt: T0 + 1, expiresAt: T0 + 2 }));
      await store.expireApprovals(new Date(T0 + 3));
      expect(b.id).not.toBe(a.id);
    } finally {
      await store.close();
    }
    const rows = (await exportOf(dir, 'jsonl'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((r) => [r.record, r.approval_event, r.approver])).toEqual([
      ['approval', 'requested', null],
      ['approval', 'requested', null],
      ['approval', 'expired', null],
      ['approval', 'approve', 'token:lead'],
    ]);
    expect(rows[3]).toMatchObject({
      approval: approvedId,
      handle: `approval:${approvedId}`,
      owner: 'token:alice',
      requester_name: 'Alice',
      approver_name: 'Lea Lead',
      carrier: 'slack',
      rules: 'big spend',
      campaign_id: 'cmp-7',
      status: 'approved',
      tool: 'create_actor_video',
      quote_credits: 400,
      updated_at: new Date(T0 + HOUR).toISOString(),
    });
    for (const r of rows) expect(Object.keys(r)).toEqual([...AUDIT_FIELDS]);
    const [header, ...lines] = parseCsv(await exportOf(dir, 'csv'));
    expect(header).toEqual([...AUDIT_FIELDS]);
    lines.forEach((cells, i) => {
      AUDIT_FIELDS.forEach((f, j) => {
        const v = rows[i]?.[f];
        expect(cells[j], f).toBe(v === null || v === undefined ? '' : String(v));
      });
    });
    expect(await exportOf(dir, 'jsonl', 'token:someone-else')).toBe('');
  });
});
