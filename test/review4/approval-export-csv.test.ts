/**
 * Review of issue 28 (hostile): names in the approval rows of `audit export` come from the REQUEST, not only the
 * people file (docs/chat-bots.md says "The audit export reads the file only"): the approval page records the
 * approver's name straight from the identity provider's `name`/`email` claims (src/approvals/page/route.ts
 * `name: signedIn.name ?? signedIn.email`, oidc.ts keeps any string up to 200 characters — not `cleanName`), and
 * the requester's name is whatever the request carried. A person controls their own IdP profile name.
 *
 * `toCsv` neutralises a cell only when it STARTS with = + - @ and quotes it only for `" , CR LF`. A spreadsheet
 * in a locale whose list separator is `;` (most of Europe: Excel opens a .csv with the locale's separator) splits
 * an unquoted `Mallory;=cmd|' /C calc'!A0` into two cells, the second a formula (OWASP "CSV injection": quote
 * every text cell, or neutralise `;` / any separator too).
 *
 * Fix: neutralise a formula start after every `;` too (e.g. `.replace(/;(?=[=+\-@\t\r])/g, ";'")`; quoting alone
 * does not help: inside a `,`-separated line the `;`-cell does not start with the quote), or drop `;` from
 * names; and run the page's IdP name through `cleanName` like every other claimed name.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { storeApprovalDesk } from '../../src/approvals/store-desk.js';
import { runAuditExport } from '../../src/audit/cli.js';
import { loadConfig, parseCli } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { HOUR, newApproval, T0 } from '../store/approvals-suite.js';

/** How a `;`-separator spreadsheet reads one CSV line: `;` separates, double quotes group (RFC 4180 quoting). */
function cellsWithSemicolons(line: string): string[] {
  const cells: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted && ch === '"' && line[i + 1] === '"') {
      cur += '"';
      i++;
    } else if (quoted && ch === '"') {
      quoted = false;
    } else if (quoted) {
      cur += ch;
    } else if (ch === '"' && cur === '') {
      quoted = true;
    } else if (ch === ';') {
      cells.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  cells.push(cur);
  return cells;
}

it('no cell of the CSV export is a formula in a spreadsheet that separates with ";"', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'genplat-review4-csv-'));
  const store = await openSqliteStore(dir);
  try {
    const desk = storeApprovalDesk(store, { onDecided: () => {}, now: () => T0 + HOUR });
    const a = await store.createApproval(newApproval({ requesterName: "Alice;+cmd|' /C calc'!A0" }));
    // What the approval page hands the desk for an approver whose IdP profile name is this (carrier `page`).
    const out = await desk.decide(
      a.id,
      { id: 'token:lead', name: "Mallory;=cmd|' /C calc'!A0", carrier: 'page' },
      'approve',
    );
    expect(out.ok).toBe(true);
  } finally {
    await store.close();
  }
  const config = loadConfig(parseCli(['audit', 'export']), { GENPLAT_STATE_DIR: dir });
  let csv = '';
  expect(
    await runAuditExport(config, { format: 'csv', since: undefined, user: undefined }, createLogger('error'), (c) => {
      csv += c;
    }),
  ).toBe(0);
  expect(csv).toContain('Mallory'); // the rows are there
  const formulas = csv
    .split('\r\n')
    .flatMap(cellsWithSemicolons)
    .filter((cell) => /^[=+\-@]/.test(cell));
  expect(formulas).toEqual([]);
});
