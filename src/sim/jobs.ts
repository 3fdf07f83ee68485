/**
 * The job engine: every job finishes at `createdAt + duration` (timing profile, or the next script), and its
 * state is computed from the clock whenever it is read. A job is "settled" once — at the first read after it
 * finished or by a timer at `finishAt`, whichever comes first: outputs are filled, a finished video is
 * registered as an owned video (so upscale can use it), and the terminal hook (webhooks) runs.
 */
import { createHash, randomBytes } from 'node:crypto';
import { OWNED_VIDEO_TYPES } from '../jobs/kinds/index.js';
import { wellFormed } from '../unicode.js';
import type { JobEngine, JobOutcome, JobScript, OwnedVideo, ProjectRegistry, SimAccount, SimJob } from './types.js';

export interface Timing {
  /** Duration of the next job, ms. */
  jobMs(): number;
  /** Delay of slow operations (upscale quote probing), ms. */
  slowOpMs: number;
}

export type TimingOption = 'test' | 'demo' | { jobMs: number; slowOpMs: number };

/**
 * test: jobs finish almost at once (20 ms) so suites stay fast, while a first poll still sees `processing`
 * often enough. demo: 8-15 s, long enough to watch a poller work, short enough to sit through.
 */
export function timingFrom(opt: TimingOption | undefined): Timing {
  if (opt === undefined || opt === 'test') return { jobMs: () => 20, slowOpMs: 10 };
  if (opt === 'demo') return { jobMs: () => 8000 + Math.floor(Math.random() * 7000), slowOpMs: 3000 };
  return { jobMs: () => opt.jobMs, slowOpMs: opt.slowOpMs };
}

/**
 * The upscale `video_type` a finished video job is registered under, by simulator job kind: each kind's
 * registry file says (`sim.ownedVideoType`, src/jobs/kinds/).
 */
export { OWNED_VIDEO_TYPES };

/** Geometry given to finished jobs' owned videos: a typical vertical 1080p UGC clip. */
const FINISHED_VIDEO = { width: 1080, height: 1920, durationS: 20, fps: 30 };

/** A job as saved: the engine's own bookkeeping (settled once, how many outputs) travels with it. */
export type SavedJob = SimJob & { settled: boolean; outputCount: number };

export interface JobEngineDeps {
  timing: Timing;
  mediaUrl(kind: 'png' | 'mp4', name: string): string;
  ownedVideos: Map<string, OwnedVideo>;
  projects: ProjectRegistry;
  onTerminal(job: SimJob, state: 'completed' | 'failed'): void;
}

export class Jobs implements JobEngine {
  /** By the id as a status read delivers it (`wellFormed`): see `JobScript.id`. */
  private readonly byId = new Map<string, SimJob>();
  private readonly scripts: JobScript[] = [];
  private readonly settled = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly outputCounts = new Map<string, number>();

  constructor(private readonly deps: JobEngineDeps) {}

  /** The next `count` jobs created (any kind) follow this script. */
  scriptNext(s: JobScript, count = 1): void {
    for (let i = 0; i < count; i++) this.scripts.push({ ...s });
  }

  /**
   * Drops scripts no job consumed. A race test scripts one per possible POST but only some are sent; the rest
   * would otherwise shape the next test's jobs (a 600 s script meant for a refused call).
   */
  clearScripts(): void {
    this.scripts.length = 0;
  }

  create(init: {
    id?: string;
    kind: string;
    account: SimAccount;
    projectId?: string;
    media: 'video' | 'image';
    creditsCharged: number;
    outputCount?: number;
    meta?: Record<string, unknown>;
    webhookUrl?: string;
  }): SimJob {
    const script = this.scripts.shift();
    const now = Date.now();
    const outcome: JobOutcome = script?.outcome ?? { kind: 'complete' };
    const job: SimJob = {
      id: script?.id ?? init.id ?? randomBytes(12).toString('hex'),
      kind: init.kind,
      accountKey: init.account.key,
      projectId: init.projectId ?? this.deps.projects.resolve(init.account, undefined),
      createdAt: now,
      finishAt: now + Math.max(0, script?.durationMs ?? this.deps.timing.jobMs()),
      outcome,
      outputs: [],
      media: init.media,
      creditsCharged: init.creditsCharged,
      meta: { ...init.meta },
      statusReads: 0,
      outputLagPolls: script?.outputLagPolls ?? 0,
      webhookUrl: init.webhookUrl,
    };
    this.byId.set(wellFormed(job.id), job);
    this.outputCounts.set(job.id, Math.max(1, init.outputCount ?? 1));
    this.arm(job);
    return job;
  }

  /** Every job with what the engine keeps beside it: what a saved sandbox needs to carry on (persist.ts). */
  snapshot(): SavedJob[] {
    return this.all().map((job) => ({
      ...job,
      settled: this.settled.has(job.id),
      outputCount: this.outputCounts.get(job.id) ?? 1,
    }));
  }

  /**
   * Takes back saved jobs (a restarted sandbox). Their clock is absolute (`createdAt`/`finishAt` are epoch ms),
   * so a job that was half done is still half done, and one whose finish time passed while nothing ran is
   * settled at its first read or by the re-armed timer.
   */
  restore(saved: SavedJob[]): void {
    for (const { settled, outputCount, ...job } of saved) {
      this.byId.set(wellFormed(job.id), job);
      this.outputCounts.set(job.id, outputCount);
      if (settled) this.settled.add(job.id);
      else this.arm(job);
    }
  }

  /** Settles the job at its finish time even if nobody reads it (webhooks go out then). */
  private arm(job: SimJob): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.settle(job);
      },
      Math.max(0, job.finishAt - Date.now()) + 1,
    );
    // Never keeps a process (CLI, tests) alive on its own.
    timer.unref();
    this.timers.add(timer);
  }

  get(kind: string, id: string, account: SimAccount): SimJob | undefined {
    const job = this.byId.get(wellFormed(id));
    // Another account's job answers exactly like an unknown one.
    if (!job || job.kind !== kind || job.accountKey !== account.key) return undefined;
    this.settle(job);
    return job;
  }

  state(job: SimJob): 'processing' | 'completed' | 'failed' {
    if (Date.now() < job.finishAt) return 'processing';
    this.settle(job);
    return job.outcome.kind === 'complete' ? 'completed' : 'failed';
  }

  all(): SimJob[] {
    return [...this.byId.values()];
  }

  /** Stops the settle timers (simulator close). */
  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private settle(job: SimJob): void {
    if (Date.now() < job.finishAt || this.settled.has(job.id)) return;
    this.settled.add(job.id);
    const completed = job.outcome.kind === 'complete';
    if (completed) {
      const n = this.outputCounts.get(job.id) ?? 1;
      const ext = job.media === 'image' ? 'png' : 'mp4';
      // Media names come from the id; an odd id (JobScript.id) is hashed into a URL-safe name.
      const base = /^[\w-]{1,64}$/.test(job.id)
        ? job.id
        : createHash('sha256').update(wellFormed(job.id)).digest('hex').slice(0, 24);
      for (let i = 0; i < n; i++) job.outputs.push(this.deps.mediaUrl(ext, n === 1 ? base : `${base}-${i + 1}`));
      this.registerOwnedVideo(job);
    }
    try {
      this.deps.onTerminal(job, completed ? 'completed' : 'failed');
    } catch (err) {
      process.stderr.write(`[genplat-sim] terminal hook failed for job ${job.id}: ${String(err)}\n`);
    }
  }

  private registerOwnedVideo(job: SimJob): void {
    if (job.media !== 'video' || !job.outputs[0]) return;
    const override = job.meta.ownedVideoType;
    if (override === null) return;
    const videoType = typeof override === 'string' ? override : OWNED_VIDEO_TYPES[job.kind];
    if (!videoType) return;
    this.deps.ownedVideos.set(job.id, {
      videoId: job.id,
      projectId: job.projectId,
      videoType,
      accountKey: job.accountKey,
      url: job.outputs[0],
      ...FINISHED_VIDEO,
    });
  }
}
