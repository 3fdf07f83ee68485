/**
 * The version in package.json, for serverInfo and `--version`. Read at run time (one or two levels up: from
 * src/ in tests, from dist/src/ — the bundled bin and its chunks included — when built).
 */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'genplat-mcp' && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}
