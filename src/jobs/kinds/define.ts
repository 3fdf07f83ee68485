/**
 * The contract of one job kind (issue 10 item 6): everything the server, the docs and the simulator need to
 * know about a kind lives in its file here, and `index.ts` lists the files. Handles (`handle.ts`), status
 * reads (`status.ts`), get_job's `kind` enum, the poller (through those two), the README endpoint table
 * (`scripts/generate-docs.ts`) and the simulator's kind map (`src/sim/jobs.ts`) read the registry.
 */
import type { CallOptions, PlatformClient } from '../../client/types.js';
import { UserInputError } from '../../errors.js';
import type { JobView } from '../view.js';

/** The raw ids get_job accepts for a job started elsewhere (flat input; which ones a kind needs is its own). */
export interface RawIds {
  id: string;
  media?: 'image' | 'video' | undefined;
  project_id?: string | undefined;
  video_type?: string | undefined;
  billing_id?: string | undefined;
}

/** One README endpoint-table row: an endpoint of the spec and the tool that reaches it. */
export interface EndpointRow {
  endpoint: string;
  tool: string;
}

export interface StatusReader<R> {
  /** The spec's status endpoint, as the README names it (`GET /video/status`). */
  endpoint: string;
  /**
   * One status GET (the client's own GET retries), mapped to a `JobView`.
   * @throws PlatformError subclasses from the client (404 for an unknown id, transport failures after retries).
   */
  read(client: PlatformClient, ref: R, o: CallOptions): Promise<JobView>;
  /** get_job's kind + id input → the ref. @throws UserInputError naming a missing field. */
  fromIds(ids: RawIds): R;
}

export interface KindDef<K extends string = string, R extends { kind: K; id: string } = { kind: K; id: string }> {
  kind: K;
  /** What the handle spells after `<kind>:` (docs and error messages). */
  handleShape: string;
  /** Handle parts after `<kind>:`, in order; `handle.ts` percent-encodes each. */
  parts(ref: R): string[];
  /** The ref from decoded handle parts (each non-empty and bounded already); undefined when the shape is wrong. */
  fromParts(parts: string[]): R | undefined;
  /** The platform id that is the job's identity (`jobKey`): a lookup hint such as model media is not part of it. */
  identity(ref: R): string;
  /** Remote ids a job followed by raw id is recorded with (get_job adoption). */
  remote(ref: R): { id: string; project_id?: string; billing_id?: string };
  /** The status read; null when the kind has no status endpoint (not pollable: read from the store). */
  status: StatusReader<R> | null;
  /** README rows of the endpoints that start this kind's jobs (its status endpoint's row is derived). */
  submits: readonly EndpointRow[];
  /**
   * The simulator's job kind for these jobs and, for finished videos the upscale area accepts, the spec's
   * `video_type` they are registered under; null when the simulator keeps no job (ledger-only kinds).
   */
  sim: { job: string; ownedVideoType?: string } | null;
  /** A ref carrying `id` in every id part, for the registry meta-test's round trips. */
  sample(id: string): R;
}

/** Identity helper: checks a kind file against the contract while keeping its literal types. */
export function defineKind<K extends string, R extends { kind: K; id: string }>(def: KindDef<K, R>): KindDef<K, R> {
  return def;
}

/** The ref shape of every kind whose handle carries one platform id. */
export type SingleIdRef<K extends string> = { kind: K; id: string };

/** Handle codec, identity and raw-id input of a one-id kind. */
export function singleId<K extends string>(kind: K) {
  return {
    parts: (ref: SingleIdRef<K>) => [ref.id],
    fromParts: (parts: string[]): SingleIdRef<K> | undefined =>
      parts.length === 1 ? { kind, id: parts[0]! } : undefined,
    identity: (ref: SingleIdRef<K>) => ref.id,
    remote: (ref: SingleIdRef<K>) => ({ id: ref.id }),
    fromIds: (ids: RawIds): SingleIdRef<K> => ({ kind, id: ids.id }),
    sample: (id: string): SingleIdRef<K> => ({ kind, id }),
  };
}

/** A raw id a kind cannot be read without; get_job names the missing field before any request. */
export const required = (kind: string, field: keyof RawIds, v: string | undefined): string => {
  if (v === undefined) throw new UserInputError(field, `required with kind ${kind}`);
  return v;
};
