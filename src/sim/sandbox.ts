/**
 * The in-process sandbox of `--sandbox` (stdio and `--http`): the simulator, remembering its state in
 * `<state dir>/sandbox/simulator.db` beside the sandbox's own job store (`genplat.db`), so a restarted server
 * finds its jobs on both sides. `--reset-sandbox` empties both: a simulator without its jobs next to a store
 * that still lists them is exactly the mismatch persistence is here to end (404 on get_job, phantom spend,
 * duplicates of jobs that no longer exist).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { StateError } from '../jobs/state-error.js';
import type { Logger } from '../log.js';
import { type Simulator, startSimulator } from './index.js';

/** The `--sandbox` simulator's state file in the sandbox folder. */
export const SANDBOX_SIM_FILE = 'simulator.db';
/** The standalone `genplat-mcp sim`'s state file: its own, as no job store of ours is paired with it. */
export const SIM_CLI_FILE = 'sim-cli.db';

/** The sandbox's simulator, and the one loopback origin besides its own whose media it fetches. */
export interface SandboxSimulator extends Simulator {
  /**
   * This server's own staging origin (`http://127.0.0.1:<port>`, its listener's: `/staged/<id>.<MAC>`): the
   * simulator fetches local files staged there as the platform would fetch them, and no other loopback URL.
   */
  allowStagingOrigin(origin: string): void;
}

/** The store's files (src/store/sqlite.ts DB_FILE, and SQLite's WAL companions). */
const STORE_FILES = ['genplat.db', 'genplat.db-wal', 'genplat.db-shm'];

/**
 * Starts the sandbox simulator for a server; call before the job store is opened (a reset removes it).
 * @throws StateError when the state file cannot be used, or a reset is asked while another process runs it.
 */
export async function startSandbox(
  config: Pick<Config, 'sandboxDir' | 'stateDir' | 'vendors' | 'resetSandbox'>,
  log: Pick<Logger, 'info' | 'warn'>,
): Promise<SandboxSimulator> {
  const stateFile = join(config.sandboxDir, SANDBOX_SIM_FILE);
  const stagingOrigins = new Set<string>();
  // 'demo' timing: jobs take seconds, like the real thing but short enough to watch.
  const sim = await startSimulator({
    timing: 'demo',
    vendors: config.vendors,
    stateFile,
    resetState: config.resetSandbox,
    mediaOrigins: stagingOrigins,
  });
  if (config.resetSandbox) {
    // The simulator's lock is held (startSimulator refuses a reset otherwise): no other sandbox server on this
    // folder is running, so its job store can go. It is created again, empty, when the server opens it.
    for (const name of STORE_FILES) {
      const path = join(config.stateDir, name);
      try {
        rmSync(path, { force: true });
      } catch (err) {
        await sim.close();
        throw StateError.from(err, path);
      }
    }
    log.info(`SANDBOX: reset; starting with no jobs and a full balance (${stateFile})`);
  }
  const p = sim.persistence;
  if (p.mode === 'file' && !config.resetSandbox) {
    log.info(`SANDBOX: state kept in ${p.path} (${p.restoredJobs} job(s) restored); --reset-sandbox starts clean`);
  } else if (p.mode === 'busy') {
    log.warn(
      `SANDBOX: ${p.path} is in use by another genplat-mcp on this state dir; this sandbox runs in memory and its jobs will not survive a restart (give it its own --state-dir)`,
    );
  }
  return Object.assign(sim, { allowStagingOrigin: (origin: string) => void stagingOrigins.add(origin) });
}
