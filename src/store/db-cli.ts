/**
 * `genplat-mcp db migrate` and `genplat-mcp db grant ROLE`, run by the operator with GENPLAT_DATABASE_URL set to
 * the migration role (docs/storage.md). stdout is their output (what was done, the statements run); no server
 * runs. Exit code 0 on success; a failure is one line on stderr (the bin's catch) and exit 1.
 */
import type { Config, DbArgs } from '../config.js';
import { ConfigurationError } from '../errors.js';
import { registerSecret } from '../log.js';
import { grantDatabaseRole, migrateDatabase } from './db-admin.js';
import { databasePassword, queryCredentials } from './index.js';

export async function runDbCommand(
  config: Pick<Config, 'databaseUrl'>,
  args: DbArgs,
  write: (chunk: string) => void = (c) => process.stdout.write(c),
): Promise<number> {
  const url = config.databaseUrl;
  if (!url) {
    throw new ConfigurationError([
      '`genplat-mcp db` works on the shared PostgreSQL store: set GENPLAT_DATABASE_URL to the migration role (the owner of the genplat_* tables)',
    ]);
  }
  // A driver message may quote the URL: its password never reaches the output.
  for (const secret of [databasePassword(url), ...queryCredentials(url)]) registerSecret(secret);
  if (args.action === 'migrate') {
    const r = await migrateDatabase(url);
    write(
      r.from === r.to
        ? `${r.where}: schema ${r.to} is current (role "${r.user}" owns it).\n`
        : `${r.where}: schema ${r.from} → ${r.to} (as role "${r.user}").\n`,
    );
    write('Grant the server its runtime role (again after each upgrade): genplat-mcp db grant <runtime role>\n');
    return 0;
  }
  const { report, statements } = await grantDatabaseRole(url, args.role);
  write(`${report.where}: schema ${report.to}; granted role "${args.role}" the runtime privileges:\n`);
  for (const sql of statements) write(`${sql};\n`);
  return 0;
}
