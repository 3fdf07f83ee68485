/**
 * Send-time staging (issue 22 item 3), the second exception to "run() sends the consented request" beside the
 * callback URL (src/paid/callback.ts): after admission and just before the one POST, each `local:<sha256>/<name>`
 * placeholder is replaced by the presigned URL of the same bytes staged for the platform. The bytes are hashed
 * again while they stream up: a file changed since consent is not sent (its object is deleted, the call fails
 * unsent). Staged objects are deleted when the POST was surely not accepted, when the job is final (its answer
 * already final: here; later: when the poller records it, `finalJobCleanup` in files-deps.ts, any process, since
 * the objects sit under the job's ledger id), else at the end of their lifetime (the platform may fetch any time
 * until the job starts; the URL expires then too), and by `sweep` after a restart.
 */
import { createHash } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import type { Json } from '../client/types.js';
import type { PlatformRequest } from '../define-tool.js';
import { BadRequestError, UserInputError } from '../errors.js';
import type { Logger } from '../log.js';
import { inSpan } from '../telemetry/traces.js';
import { openQuotedFile } from './confine.js';
import type { ResolvedMedia } from './local-media.js';
import type { Stager } from './stage-s3.js';
import { stagedFetchRefused } from './wording.js';

export interface StagedRequest {
  request: PlatformRequest;
  /**
   * Call after the POST: `accepted` = the platform may have the job (then deletion waits for the job's end or the
   * lifetime); `final` = its answer already says the job is over (completed or failed): deleted now.
   */
  release(accepted: boolean, final?: boolean): void;
  /** The body fields that hold a staged URL (e.g. `voice_url`, `image_urls[0]`). */
  fields: string[];
}

/** What in a platform message says it could not get the media at a URL (the spec: an inaccessible URL "is rejected"). */
const FETCH_WORDS = /accessib|fetch|download|reach|public/i;

/**
 * The platform's refusal of a request whose staged field it names with words of fetching: said as what it is
 * (it could not fetch the file this server staged; set a reachable public URL or a bucket), never "fix the
 * input" — the file itself passed every check. Any other error is returned as it is.
 */
export function stagedRefusal(err: unknown, fields: readonly string[]): unknown {
  const pm = err instanceof BadRequestError ? err.platformMessage : undefined;
  if (!pm || !FETCH_WORDS.test(pm)) return err;
  const field = fields.find((f) =>
    pm.includes(
      f
        .replace(/\[\d+\]/g, '')
        .split('.')
        .pop() ?? f,
    ),
  );
  if (!field || !(err instanceof BadRequestError)) return err;
  const w = stagedFetchRefused(field, ` The platform said: "${pm}".`);
  return new BadRequestError(err.status, pm, err.body, err.requestId, w.message, w.next);
}

function extOf(contentType: string): string {
  const sub = contentType.split('/')[1] ?? 'bin';
  return sub === 'jpeg' ? 'jpg' : sub === 'mpeg' ? 'mp3' : sub === 'quicktime' ? 'mov' : sub;
}

/** The consented bytes' source: the upload, or the very file the quote checked, read only through its descriptor. */
async function openSource(m: ResolvedMedia): Promise<Readable> {
  if (m.source === 'upload') return m.upload.open();
  const fh = await openQuotedFile(m);
  return fh.createReadStream({ start: 0, end: m.size - 1, autoClose: true });
}

/** Streams `m` through a sha256 into the stager; resolves to the key + URL when the bytes are the consented ones. */
async function stageOne(
  m: ResolvedMedia,
  stager: Stager,
  group: string | undefined,
): Promise<{ key: string; url: string }> {
  const hash = createHash('sha256');
  const tee = new PassThrough();
  const src = await openSource(m);
  src.on('data', (chunk: Buffer) => hash.update(chunk));
  src.on('error', (err) => tee.destroy(err));
  src.pipe(tee);
  // destroy in every case: a stager that gave up early must not leave the file's descriptor open.
  const staged = await stager
    .stage(tee, { size: m.size, contentType: m.contentType, ext: extOf(m.contentType), group })
    .finally(() => src.destroy());
  if (hash.digest('hex') !== m.sha256) {
    await stager.remove(staged.key).catch(() => undefined);
    throw new UserInputError(m.field, 'the file changed after it was quoted; nothing was sent — ask again');
  }
  return staged;
}

/**
 * Stages every placeholder of `request` and returns the request with their URLs. `group` = the job's ledger id
 * (its objects are found by it when the job ends). On any failure, what was staged is deleted and the error is
 * thrown: nothing was sent.
 */
export async function stageRequest(
  request: PlatformRequest,
  files: Map<string, ResolvedMedia>,
  stager: Stager,
  log: Logger,
  group?: string,
): Promise<StagedRequest> {
  const urls = new Map<string, string>();
  const keys: string[] = [];
  try {
    for (const [placeholder, m] of files) {
      const s = await inSpan('genplat.staging', { 'genplat.staging.field': m.field }, () => stageOne(m, stager, group));
      keys.push(s.key);
      urls.set(placeholder, s.url);
    }
  } catch (err) {
    await Promise.all(keys.map((k) => stager.remove(k).catch(() => undefined)));
    throw err;
  }
  const swap = (v: unknown): unknown =>
    typeof v === 'string'
      ? (urls.get(v) ?? v)
      : Array.isArray(v)
        ? v.map(swap)
        : v !== null && typeof v === 'object' && !(v instanceof Uint8Array)
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, swap(x)]))
          : v;
  const remove = () => {
    for (const k of keys) {
      stager
        .remove(k)
        .catch((e) => log.warn('a staged file could not be deleted; sweep retries', { error: String(e) }));
    }
  };
  return {
    request: { route: request.route, body: swap(request.body) as Json },
    fields: [...files.values()].map((m) => m.field),
    release(accepted, final = false) {
      if (!accepted || final) return remove();
      for (const k of keys) {
        stager.accepted?.(k).catch((e) => log.warn('a staged file could not be marked accepted', { error: String(e) }));
      }
      // unref: a pending deletion never keeps the process alive; a stopped process's leftovers are swept.
      setTimeout(remove, stager.ttlSeconds * 1000).unref();
    },
  };
}
