/**
 * Loads `node:sqlite` without its one-time "SQLite is an experimental feature" warning: Node 22 prints it on
 * stderr at first load, and a user reading the host's MCP log should not see a scary line on every start
 * (the API is stable enough for what we use: DatabaseSync, prepare, exec). Only that one warning is dropped.
 *
 * `process.getBuiltinModule` rather than a static import: a static `import 'node:sqlite'` fails at link
 * time on an old Node, before `src/node-version.ts` can say which Node is needed.
 */
import type * as Sqlite from 'node:sqlite';

let cached: typeof Sqlite | undefined;

function isSqliteWarning(warning: unknown, rest: unknown[]): boolean {
  const message = warning instanceof Error ? warning.message : String(warning);
  const type =
    warning instanceof Error
      ? warning.name
      : typeof rest[0] === 'string'
        ? rest[0]
        : (rest[0] as { type?: string } | undefined)?.type;
  return type === 'ExperimentalWarning' && /SQLite/i.test(message);
}

export function loadSqlite(): typeof Sqlite {
  if (cached) return cached;
  const original = process.emitWarning;
  process.emitWarning = function filtered(this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    if (isSqliteWarning(warning, rest)) return;
    return (original as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    const mod = process.getBuiltinModule?.('node:sqlite') as typeof Sqlite | undefined;
    if (!mod)
      throw new Error(`node:sqlite is not available in Node.js ${process.version}; genplat-mcp needs Node.js >= 22.13`);
    cached = mod;
    return mod;
  } finally {
    process.emitWarning = original;
  }
}
