/**
 * `genplat-mcp audit export [--format csv|jsonl] [--since ISO] [--user ID]`: the audit trail to stdout, for
 * the operator (not an MCP tool: it lists every caller). Reads the configured store (SQLite state dir or
 * GENPLAT_DATABASE_URL); needs no API key. `--since` keeps calls admitted at or after it.
 */
import type { AuditArgs, Config } from '../config.js';
import type { Logger } from '../log.js';
import { openConfiguredStore } from '../store/index.js';
import { foldAudit, toCsv, toJsonl } from './export.js';

export async function runAuditExport(
  config: Config,
  args: AuditArgs,
  log: Logger,
  write: (chunk: string) => void = (c) => process.stdout.write(c),
): Promise<number> {
  const store = await openConfiguredStore(config, log);
  try {
    const events = await store.auditEvents({ since: args.since, owner: args.user });
    const rows = foldAudit(events);
    write(args.format === 'jsonl' ? toJsonl(rows) : toCsv(rows));
    log.info(`audit export: ${rows.length} paid call(s) from ${store.description}`);
    return 0;
  } finally {
    await store.close();
  }
}
