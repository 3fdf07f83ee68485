/**
 * `genplat-mcp report [--by person|team|tool|day|week|month] [--since ISO] [--until ISO] [--csv] [--sandbox]`:
 * the spend report (spend-report.ts) for the operator's terminal, every caller's calls, from the configured store
 * as `audit export` reads it (a missing SQLite store is named, never created). An aligned table, or CSV.
 */

import { withAuditStore } from '../audit/cli.js';
import type { Config, ReportArgs } from '../config.js';
import type { Logger } from '../log.js';
import { reportCsv, reportTable } from './format.js';
import { recordedNames } from './recorded-names.js';
import { spendReport } from './spend-report.js';

export async function runReport(
  config: Config,
  args: ReportArgs,
  log: Logger,
  write: (chunk: string) => void = (c) => process.stdout.write(c),
  err: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<number> {
  return withAuditStore(config, log, 'report', err, async (store) => {
    const events = await store.auditEvents({ since: args.since });
    const names = await recordedNames(events, config.people, (id) => store.get(id));
    const report = spendReport(events, args, config.people, names);
    write(args.csv ? reportCsv(report) : reportTable(report));
    log.info(`report: ${report.total.calls} paid call(s) by ${report.by} from ${store.description}`);
  });
}
