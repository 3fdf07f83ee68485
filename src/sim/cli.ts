/**
 * `genplat-mcp sim [--port N] [--reset]`: the simulator on its own. STDOUT gets exactly two lines first — the
 * base URL, then the sandbox API key — so scripts can read them; everything else goes to stderr. Started from
 * the bin it keeps its state in `<state dir>/sandbox/sim-cli.db`, so a restart keeps the key, the jobs and the
 * balances (and, when free, the port); `--reset` starts clean.
 */
import type { EventEmitter } from 'node:events';
import { type Simulator, startSimulator } from './index.js';

export interface SimulatorCliOptions {
  port?: number;
  /** Where the state is kept (persist.ts); undefined = in memory. */
  stateFile?: string;
  /** Empty `stateFile` first. */
  reset?: boolean;
  /** Where SIGINT/SIGTERM arrive (default `process`); tests pass their own emitter. */
  signals?: EventEmitter;
  /** Default process.stdout / process.stderr writers. */
  stdout?: (line: string) => void;
  stderr?: (line: string) => void;
}

export async function runSimulatorCli(opts: SimulatorCliOptions = {}): Promise<Simulator> {
  const out = opts.stdout ?? ((l: string) => process.stdout.write(`${l}\n`));
  const err = opts.stderr ?? ((l: string) => process.stderr.write(`${l}\n`));
  const signals: EventEmitter = opts.signals ?? process;
  const sim = await startSimulator({
    port: opts.port,
    ...(opts.stateFile ? { stateFile: opts.stateFile, resetState: opts.reset ?? false } : {}),
    timing: 'demo',
    onRequest: (e) => err(`[genplat-sim] ${e.method} ${e.path} -> ${e.status || 'reset'} (${e.requestId})`),
  });
  out(sim.baseUrl);
  out(sim.apiKey);
  err(`[genplat-sim] listening on ${sim.origin}; media at ${sim.origin}/media/; press Ctrl+C to stop`);
  const p = sim.persistence;
  if (p.mode === 'file') {
    err(
      opts.reset
        ? `[genplat-sim] reset: no jobs, a full balance and a new key; state kept in ${p.path}`
        : `[genplat-sim] state kept in ${p.path} (${p.restoredJobs} job(s) restored); --reset starts clean`,
    );
  } else if (p.mode === 'busy') {
    err(`[genplat-sim] ${p.path} is in use by another genplat-mcp sim: running in memory, nothing is kept`);
  }

  const stop = (signal: string) => {
    signals.off('SIGINT', onInt);
    signals.off('SIGTERM', onTerm);
    err(`[genplat-sim] ${signal}: stopping`);
    sim.close().then(
      () => err('[genplat-sim] stopped'),
      (e) => err(`[genplat-sim] error while stopping: ${String(e)}`),
    );
  };
  const onInt = () => stop('SIGINT');
  const onTerm = () => stop('SIGTERM');
  signals.on('SIGINT', onInt);
  signals.on('SIGTERM', onTerm);
  return sim;
}
