/**
 * `genplat-mcp audit export [--format csv|jsonl] [--since ISO] [--user ID]`: the audit trail to stdout, for
 * the operator (not an MCP tool: it lists every caller). Reads the configured store (SQLite state dir or
 * GENPLAT_DATABASE_URL; `--sandbox`: the sandbox's own store, `<state dir>/sandbox`); needs no API key. `--since`
 * keeps calls admitted at or after it. A SQLite store that does not exist is named and never created (an empty
 * export from a new file would look like "no paid calls").
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AuditArgs, Config } from '../config.js';
import type { Logger } from '../log.js';
import { openConfiguredStore } from '../store/index.js';
import type { Store } from '../store/types.js';
import { approvalAuditRows, foldAudit, mergeAuditRows, toCsv, toJsonl, withRecordedNames } from './export.js';

export async function runAuditExport(
  config: Config,
  args: AuditArgs,
  log: Logger,
  write: (chunk: string) => void = (c) => process.stdout.write(c),
  err: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<number> {
  return withAuditStore(config, log, 'audit', err, async (store) => {
    const events = await store.auditEvents({ since: args.since, owner: args.user });
    const calls = await withRecordedNames(foldAudit(events, config.people), (id) => store.get(id));
    const approvals = approvalAuditRows(
      await store.approvalAudit({ since: args.since, requester: args.user }),
      config.people,
    );
    const rows = mergeAuditRows(calls, approvals);
    write(args.format === 'jsonl' ? toJsonl(rows) : toCsv(rows));
    log.info(
      `audit export: ${calls.length} paid call(s) and ${approvals.length} approval event(s) from ${store.description}`,
    );
  });
}

/**
 * The operator commands that read the audit (`audit export`, `report`): open the configured store, or name the
 * missing SQLite file (exit 2) rather than create an empty one that would read as "no paid calls"; close it after.
 * @returns the exit code: 0 once `use` has run, 2 when there is no store.
 */
export async function withAuditStore(
  config: Config,
  log: Logger,
  command: string,
  err: (line: string) => void,
  use: (store: Store) => Promise<void>,
): Promise<number> {
  const missing = missingStore(config);
  if (missing) {
    err(`genplat-mcp ${command}: ${missing}`);
    return 2;
  }
  const store = await openConfiguredStore(config, log);
  try {
    await use(store);
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * Why the configured store cannot be read without creating it (a SQLite file that does not exist), else
 * undefined. Also `genplat-mcp report`'s check (src/report/cli.ts).
 */
export function missingStore(config: Config): string | undefined {
  if (config.databaseUrl) return undefined;
  const file = join(config.stateDir, 'genplat.db');
  if (existsSync(file)) return undefined;
  const sandboxFile = join(config.sandboxDir, 'genplat.db');
  const hint =
    !config.sandbox && existsSync(sandboxFile)
      ? ` (the sandbox's store is ${sandboxFile}: add --sandbox)`
      : ' (check --state-dir / GENPLAT_STATE_DIR, or GENPLAT_DATABASE_URL for a PostgreSQL store)';
  return `no store at ${file}${hint}`;
}
