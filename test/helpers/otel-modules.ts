/**
 * Telemetry off loads no OpenTelemetry module (issue 30 items 1-2): the built bin is spawned with
 * test/fixtures/record-otel.mjs preloaded, which appends to a file the URL of every `@opentelemetry` module the
 * process loads (module.registerHooks sees `import` and `require`). Shared by the traces and metrics checks.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Simulator } from '../../src/sim/index.js';
import { ROOT, type SpawnedServer, spawnServer } from './spawn-server.js';

/**
 * Runs `use` against the bin started with `env` on top of the platform settings (state in `dir/name`), stops it,
 * and returns what `use` answered with every OpenTelemetry module URL the server process loaded.
 */
export async function withModuleRecord<T>(
  sim: Simulator,
  dir: string,
  name: string,
  env: Record<string, string>,
  use: (s: SpawnedServer) => Promise<T>,
  opts: { era?: 'legacy' | 'modern' } = {},
): Promise<{ result: T; modules: string[] }> {
  const moduleLog = join(dir, `${name}-modules.log`);
  let s: SpawnedServer | undefined;
  let result: T;
  try {
    s = await spawnServer(
      {
        GENPLAT_BASE_URL: sim.baseUrl,
        GENPLAT_API_KEY: sim.apiKey,
        GENPLAT_STATE_DIR: join(dir, name),
        GENPLAT_LOG_LEVEL: 'error',
        GENPLAT_TEST_MODULE_LOG: moduleLog,
        NODE_OPTIONS: `--import ${join(ROOT, 'test/fixtures/record-otel.mjs')}`,
        ...env,
      },
      [],
      opts,
    );
    result = await use(s);
  } finally {
    await s?.close();
  }
  const modules = (await readFile(moduleLog, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return { result, modules };
}
