/**
 * The registry of job kinds: one file per kind (`<kind>.ts`, `_` → `-`), listed here once. Everything that
 * depends on the set of kinds reads this list; `test/contract/job-kinds.test.ts` checks that it does.
 * Order is public: it is the order of get_job's `kind` enum in tools/list.
 */
import actorVideo from './actor-video.js';
import customAvatar from './custom-avatar.js';
import type { EndpointRow, KindDef } from './define.js';
import familyVideo from './family-video.js';
import gesture from './gesture.js';
import model from './model.js';
import productVideo from './product-video.js';
import shoppableImage from './shoppable-image.js';
import shoppableVideo from './shoppable-video.js';
import submission from './submission.js';
import template from './template-video.js';
import upscale from './upscale.js';

export const KINDS = [
  actorVideo,
  productVideo,
  shoppableImage,
  shoppableVideo,
  template,
  gesture,
  familyVideo,
  model,
  upscale,
  customAvatar,
  submission,
] as const;

type Def = (typeof KINDS)[number];
export type JobKind = Def['kind'];
/** A job's platform reference: the union of every kind's ref shape. */
export type JobRef = ReturnType<Def['sample']>;
/** Kinds with a status endpoint (get_job's `kind` enum, the poller's reads). */
export type PollableKind = Extract<Def, { status: object }>['kind'];

export const JOB_KINDS = KINDS.map((k) => k.kind) as [JobKind, ...JobKind[]];

/** Registry entries typed for callers that hold any ref (each kind file is checked against its own ref). */
const BY_KIND = new Map<string, KindDef<JobKind, JobRef>>(KINDS.map((k) => [k.kind, k as KindDef<JobKind, JobRef>]));

export function kindDef(kind: JobKind): KindDef<JobKind, JobRef> {
  return BY_KIND.get(kind)!;
}

/** Undefined for a string that is not a kind (handle decoding). */
export function findKind(kind: string): KindDef<JobKind, JobRef> | undefined {
  return BY_KIND.get(kind);
}

export const POLLABLE_KINDS = KINDS.filter((k) => k.status !== null).map((k) => k.kind) as [
  PollableKind,
  ...PollableKind[],
];

/** README rows of one kind: the endpoints that start its jobs, then its status endpoint. */
export function endpointRows(def: {
  kind: string;
  submits: readonly EndpointRow[];
  status: { endpoint: string } | null;
}): EndpointRow[] {
  return [
    ...def.submits,
    ...(def.status
      ? [{ endpoint: def.status.endpoint, tool: `get_job / wait_for_jobs (\`${def.kind}:\` handles)` }]
      : []),
  ];
}

/** The simulator's job kind for our `kind` (its routes create and look jobs up under it). */
export function simJobOf(kind: JobKind): string {
  const sim = kindDef(kind).sim;
  if (!sim) throw new Error(`the simulator keeps no jobs of kind ${kind}`);
  return sim.job;
}

/** Simulator job kind → the upscale `video_type` its finished videos are registered under. */
export const OWNED_VIDEO_TYPES: Readonly<Record<string, string>> = Object.fromEntries(
  KINDS.flatMap((k) => (k.sim?.ownedVideoType ? [[k.sim.job, k.sim.ownedVideoType]] : [])),
);
