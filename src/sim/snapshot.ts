/**
 * What a saved sandbox carries over a restart, as rows for persist.ts: the sandbox key and port, accounts
 * (balances), projects, jobs (with their absolute creation and finish times, so they keep progressing by the
 * clock), owned videos (upscale sources, upscaled sizes) and per-account custom avatars and voices (uploads).
 * The seeded catalog is not saved: every start seeds it again. Scripts, faults and the request log are test
 * knobs and stay in memory.
 *
 * Media URLs name the simulator's origin, whose port may change between runs: rows store a placeholder for it,
 * and each start puts its own origin back, so every URL it answers with is one it serves.
 */
import type { AccountStore, Projects } from './accounts.js';
import type { Jobs, SavedJob } from './jobs.js';
import type { Rows } from './persist.js';
import type { OwnedVideo, SimAccount, SimAvatar, SimData, SimVoice } from './types.js';

/** Stands for `<origin>/` inside saved rows. Not a URL, so it never matches a real one. */
const ORIGIN_MARK = '{{sim-origin}}/';

export interface SimStores {
  accounts: AccountStore;
  projects: Projects;
  jobs: Jobs;
  ownedVideos: Map<string, OwnedVideo>;
  data: SimData;
}

export interface SandboxMeta {
  apiKey: string;
  port: number;
}

// Ids become keys as JSON strings: an odd job id (lone surrogates, control characters; JobScript.id) stays
// exact and distinct, where SQLite's UTF-8 text would turn a lone surrogate into U+FFFD.
const key = (kind: string, id: string) => `${kind}/${JSON.stringify(id)}`;

export function toRows(s: SimStores, meta: SandboxMeta, origin: string): Rows {
  const rows: Rows = new Map();
  const put = (k: string, value: unknown) => rows.set(k, JSON.stringify(value).split(`${origin}/`).join(ORIGIN_MARK));
  put('meta/sandbox', meta);
  for (const a of s.accounts.all()) put(key('account', a.key), a);
  for (const [projectId, accountKey] of s.projects.entries()) put(key('project', projectId), accountKey);
  for (const job of s.jobs.snapshot()) put(key('job', job.id), job);
  for (const v of s.ownedVideos.values()) put(key('owned', v.videoId), v);
  for (const [account, list] of s.data.customAvatars) put(key('avatars', account), list);
  for (const [account, list] of s.data.customVoices) put(key('voices', account), list);
  return rows;
}

/** The saved key and port, if any (read before the simulator listens, to try the same port again). */
export function metaOf(rows: Rows): SandboxMeta | undefined {
  const raw = rows.get('meta/sandbox');
  if (raw === undefined) return undefined;
  const m = JSON.parse(raw) as Partial<SandboxMeta>;
  return typeof m.apiKey === 'string' && typeof m.port === 'number' ? { apiKey: m.apiKey, port: m.port } : undefined;
}

/**
 * Puts saved rows back into freshly seeded stores; saved entries replace seeded ones with the same id (a seeded
 * video upscaled before the restart keeps its new size).
 * @returns how many jobs came back.
 */
export function restoreRows(s: SimStores, rows: Rows, origin: string): number {
  const jobs: SavedJob[] = [];
  for (const [k, raw] of rows) {
    const slash = k.indexOf('/');
    const kind = k.slice(0, slash);
    if (kind === 'meta') continue;
    const id = JSON.parse(k.slice(slash + 1)) as string;
    const value: unknown = JSON.parse(raw.split(ORIGIN_MARK).join(`${origin}/`));
    switch (kind) {
      case 'account':
        s.accounts.add(value as SimAccount);
        break;
      case 'project':
        s.projects.add(value as string, id);
        break;
      case 'job':
        jobs.push(value as SavedJob);
        break;
      case 'owned':
        s.ownedVideos.set(id, value as OwnedVideo);
        break;
      case 'avatars':
        s.data.customAvatars.set(id, value as SimAvatar[]);
        break;
      case 'voices':
        s.data.customVoices.set(id, value as SimVoice[]);
        break;
      default:
        // A kind a later version added: ignored (the version check refuses files that need it).
        break;
    }
  }
  // Creation order, as they were made (a Map keeps insertion order; list_jobs-like reads follow it).
  jobs.sort((a, b) => a.createdAt - b.createdAt);
  s.jobs.restore(jobs);
  return jobs.length;
}
