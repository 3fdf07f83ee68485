/**
 * Cold start: spawn → MCP initialize → first tools/list answered, for our built server (against an
 * already running simulator, and with --sandbox, which also starts the built-in one) and for the minimal
 * SDK server. Runs are interleaved round by round so machine noise hits every variant alike.
 *
 * The clock stops when the tools/list answer reaches the client's transport, not when `listTools()`
 * resolves: after the answer arrives the SDK client parses it and compiles an Ajv validator for every
 * output schema (`cacheToolMetadata`), which is the bench client's own work, grows with the number of tools
 * that declare an output schema (the minimal server has none) and took 50-180 ms of the old figure. That
 * end-to-end figure is still reported, as `listResolvedMs`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Simulator } from '../../src/sim/index.js';
import { MINIMAL_ENTRY, median, memory, OUR_ENTRY, round, spawnStdio } from './stdio.js';

export interface ColdStartResult {
  runs: number;
  medianMs: { ours: number; oursSandbox: number; minimal: number };
  ratio: { ours: number; oursSandbox: number };
  /** Spawn → `listTools()` resolved (includes the client's parsing and Ajv compiles), median ms. */
  listResolvedMs: { ours: number; oursSandbox: number; minimal: number };
  /** Peak RSS (VmHWM) right after the first tools/list, median over runs, MiB. */
  idlePeakRssMiB: { ours: number; oursSandbox: number; minimal: number };
  /**
   * RSS (VmRSS) after a host's connect-time listing: tools, resources, resource templates and prompts (the minimal
   * server has only tools), median over runs, MiB; and the peak (VmHWM) at that moment.
   */
  listedRssMiB: { ours: number; oursSandbox: number; minimal: number };
  listedPeakMiB: { ours: number; oursSandbox: number; minimal: number };
  samplesMs: { ours: number[]; oursSandbox: number[]; minimal: number[] };
}

type Variant = keyof ColdStartResult['medianMs'];

export function serverEnv(
  sim: Simulator,
  stateDir: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  const vendors = Object.entries(sim.vendors)
    .map(([letter, name]) => `${letter}=${name}`)
    .join(',');
  return {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: stateDir,
    GENPLAT_VENDORS: vendors,
    GENPLAT_LOG_LEVEL: 'warn',
    ...extra,
  };
}

async function once(
  variant: Variant,
  sim: Simulator,
  stateDir: string,
  extra: Record<string, string> = {},
): Promise<{ ms: number; resolvedMs: number; peakMiB: number; listedMiB: number; listedPeakMiB: number }> {
  const started = performance.now();
  const s =
    variant === 'minimal'
      ? await spawnStdio(MINIMAL_ENTRY, { ...extra })
      : variant === 'ours'
        ? await spawnStdio(OUR_ENTRY, serverEnv(sim, stateDir, extra))
        : await spawnStdio(OUR_ENTRY, { GENPLAT_STATE_DIR: stateDir, GENPLAT_LOG_LEVEL: 'warn', ...extra }, [
            '--sandbox',
          ]);
  // Protocol.connect installed its own onmessage: wrap it to note when the tools/list answer arrives.
  let arrived = Number.NaN;
  const deliver = s.transport.onmessage;
  s.transport.onmessage = (message) => {
    const result = (message as { result?: { tools?: unknown } }).result;
    if (Number.isNaN(arrived) && result?.tools !== undefined) arrived = performance.now();
    deliver?.(message);
  };
  await s.client.listTools();
  const resolved = performance.now();
  const peakMiB = memory(s.pid)?.peakMiB ?? Number.NaN;
  // What hosts such as Claude Desktop and the Inspector ask right after connecting. The minimal server declares
  // tools only, so its listing ends here.
  if (variant !== 'minimal') {
    await s.client.listResources();
    await s.client.listResourceTemplates();
    await s.client.listPrompts();
  }
  const listed = memory(s.pid);
  await s.close();
  return {
    ms: arrived - started,
    resolvedMs: resolved - started,
    peakMiB,
    listedMiB: listed?.rssMiB ?? Number.NaN,
    listedPeakMiB: listed?.peakMiB ?? Number.NaN,
  };
}

export async function coldStart(sim: Simulator, runs: number): Promise<ColdStartResult> {
  const variants: Variant[] = ['ours', 'oursSandbox', 'minimal'];
  const ms: Record<Variant, number[]> = { ours: [], oursSandbox: [], minimal: [] };
  const resolvedMs: Record<Variant, number[]> = { ours: [], oursSandbox: [], minimal: [] };
  const peak: Record<Variant, number[]> = { ours: [], oursSandbox: [], minimal: [] };
  const listed: Record<Variant, number[]> = { ours: [], oursSandbox: [], minimal: [] };
  const listedPeak: Record<Variant, number[]> = { ours: [], oursSandbox: [], minimal: [] };
  const stateDir = await mkdtemp(join(tmpdir(), 'genplat-bench-cold-'));
  try {
    // One unmeasured round warms the OS file cache, as any second launch of a host would find it.
    for (const v of variants) await once(v, sim, stateDir);
    for (let i = 0; i < runs; i++) {
      // Rotate the order each round so no variant always runs right after the same one.
      for (let k = 0; k < variants.length; k++) {
        const v = variants[(i + k) % variants.length] as Variant;
        const r = await once(v, sim, stateDir);
        ms[v].push(r.ms);
        resolvedMs[v].push(r.resolvedMs);
        peak[v].push(r.peakMiB);
        listed[v].push(r.listedMiB);
        listedPeak[v].push(r.listedPeakMiB);
      }
    }
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
  const med = (v: Variant) => round(median(ms[v]), 1);
  const medOf = (xs: Record<Variant, number[]>) => ({
    ours: round(median(xs.ours), 1),
    oursSandbox: round(median(xs.oursSandbox), 1),
    minimal: round(median(xs.minimal), 1),
  });
  return {
    runs,
    medianMs: { ours: med('ours'), oursSandbox: med('oursSandbox'), minimal: med('minimal') },
    ratio: {
      ours: round(median(ms.ours) / median(ms.minimal)),
      oursSandbox: round(median(ms.oursSandbox) / median(ms.minimal)),
    },
    listResolvedMs: {
      ours: round(median(resolvedMs.ours), 1),
      oursSandbox: round(median(resolvedMs.oursSandbox), 1),
      minimal: round(median(resolvedMs.minimal), 1),
    },
    idlePeakRssMiB: {
      ours: round(median(peak.ours), 1),
      oursSandbox: round(median(peak.oursSandbox), 1),
      minimal: round(median(peak.minimal), 1),
    },
    listedRssMiB: medOf(listed),
    listedPeakMiB: medOf(listedPeak),
    samplesMs: {
      ours: ms.ours.map((x) => round(x, 1)),
      oursSandbox: ms.oursSandbox.map((x) => round(x, 1)),
      minimal: ms.minimal.map((x) => round(x, 1)),
    },
  };
}

export interface FirstLaunchResult {
  runs: number;
  medianMs: { ours: number; minimal: number };
  ratio: number;
  samplesMs: { ours: number[]; minimal: number[] };
}

/**
 * A host's first launch: the same spawn → tools/list answer as `coldStart`, with V8's on-disk compile cache off
 * (`NODE_DISABLE_COMPILE_CACHE=1`, which the bin's `module.enableCompileCache()` honours) for both servers, so
 * every module is compiled as on a fresh install. Interleaved like `coldStart`, one unmeasured round first.
 */
export async function firstLaunch(sim: Simulator, runs: number): Promise<FirstLaunchResult> {
  const variants = ['ours', 'minimal'] as const;
  const ms: Record<(typeof variants)[number], number[]> = { ours: [], minimal: [] };
  const extra = { NODE_DISABLE_COMPILE_CACHE: '1' };
  const stateDir = await mkdtemp(join(tmpdir(), 'genplat-bench-first-'));
  try {
    for (const v of variants) await once(v, sim, stateDir, extra);
    for (let i = 0; i < runs; i++) {
      for (let k = 0; k < variants.length; k++) {
        const v = variants[(i + k) % variants.length] as (typeof variants)[number];
        ms[v].push((await once(v, sim, stateDir, extra)).ms);
      }
    }
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
  return {
    runs,
    medianMs: { ours: round(median(ms.ours), 1), minimal: round(median(ms.minimal), 1) },
    ratio: round(median(ms.ours) / median(ms.minimal)),
    samplesMs: { ours: ms.ours.map((x) => round(x, 1)), minimal: ms.minimal.map((x) => round(x, 1)) },
  };
}
