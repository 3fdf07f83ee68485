/**
 * Downloads one job output to a file, for save_outputs. Never carries the API key (media URLs are public,
 * invariant 5). Each hop of a redirect chain (followed here, one by one, at most `MAX_REDIRECTS`) must be a
 * public media URL by the same rule as inputs (src/guards/url.ts; the sandbox's own origin is trusted there),
 * and every connection goes to an address checked at connect time (src/client/guarded-lookup.ts: DNS pinned),
 * so a hostile CDN answer or DNS record cannot turn this process into a probe of the user's network. The file's
 * own first bytes decide what it is (src/client/media-sniff.ts), whatever the Content-Type says: only an
 * allow-listed media type of the output's family is written, named by that type. Size is capped before and
 * while reading. The file appears only once complete (written beside, then renamed).
 */
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GenplatError } from '../errors.js';
import { publicMediaUrlProblem } from '../guards/url.js';
import { guardedLookup, NonPublicAddressError, type Resolver, systemResolver } from './guarded-lookup.js';
import { SNIFF_BYTES, type SniffedMedia, sniffMedia } from './media-sniff.js';
import { requireUndiciCore } from './undici-core.js';

/** A download refused or failed: nothing was written at the target path. */
export class DownloadError extends GenplatError {}

/** 5 hops: what browsers' CDN chains need in practice (curl's default is 50, far beyond any media CDN). */
const MAX_REDIRECTS = 5;
/** 60 s without the response head: a media CDN answers in well under a second. */
const HEAD_TIMEOUT_MS = 60_000;

export interface DownloadRequest {
  url: string;
  /** `video` | `image` | `audio` | `avatar` (avatar outputs are images). */
  media: string;
  /**
   * Absolute target path WITHOUT extension (the caller has confined it to the output folder); the file is
   * written at `<path>.<ext>`, the extension of the media type its bytes prove.
   */
  path: string;
  maxBytes: number;
  /** Name resolution; default the system resolver. Tests inject names that resolve to loopback. */
  resolver?: Resolver;
}

export interface Downloaded {
  path: string;
  bytes: number;
  /** The media type the file's bytes prove (not the Content-Type the host sent). */
  contentType: string;
}

const FAMILY: Record<string, SniffedMedia['family']> = {
  video: 'video',
  image: 'image',
  audio: 'audio',
  avatar: 'image',
};

const refusedAddress = (hop: number, why: string) =>
  new DownloadError(
    `Refused to download ${hop === 0 ? 'the output URL' : `a redirect target (hop ${hop})`}: it ${why}. Nothing was saved.`,
    'The output URL or its redirect points at a non-public host; open the URL yourself only if you trust it.',
  );

function nonPublic(err: unknown): NonPublicAddressError | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) if (e instanceof NonPublicAddressError) return e;
  return undefined;
}

type Answer = { statusCode: number; headers: Record<string, string | string[] | undefined>; body: Readable };

export async function downloadTo(req: DownloadRequest): Promise<Downloaded> {
  const { Agent } = requireUndiciCore();
  // One agent per download: its lookup is the pinned, checked one; nothing is shared with the platform client.
  const agent = new Agent({ connect: { lookup: guardedLookup(req.resolver ?? systemResolver) } });
  try {
    return await fetchTo(req, agent as unknown as { request(o: object): Promise<Answer> });
  } finally {
    await agent.close().catch(() => {});
  }
}

async function fetchTo(req: DownloadRequest, agent: { request(o: object): Promise<Answer> }): Promise<Downloaded> {
  let url = req.url;
  let res: Answer | undefined;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const problem = publicMediaUrlProblem(url);
    if (problem) throw refusedAddress(hop, problem);
    const u = new URL(url);
    try {
      res = await agent.request({
        origin: u.origin,
        path: `${u.pathname}${u.search}`,
        method: 'GET',
        headersTimeout: HEAD_TIMEOUT_MS,
        signal: AbortSignal.timeout(HEAD_TIMEOUT_MS),
      });
    } catch (err) {
      const np = nonPublic(err);
      if (np) throw refusedAddress(hop, `is not public: ${np.message}`);
      throw new DownloadError(
        `The media host could not be reached (${err instanceof Error ? err.message : String(err)}). Nothing was saved.`,
        'Try again later, or call get_job for fresh output URLs.',
      );
    }
    const location = res.headers.location;
    if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
      discard(res.body);
      url = new URL(location, url).href;
      continue;
    }
    break;
  }
  if (!res || (res.statusCode >= 300 && res.statusCode < 400)) {
    if (res) discard(res.body);
    throw new DownloadError(`Refused: more than ${MAX_REDIRECTS} redirects. Nothing was saved.`, 'Try again later.');
  }
  if (res.statusCode < 200 || res.statusCode >= 300) {
    discard(res.body);
    throw new DownloadError(
      `The media host answered HTTP ${res.statusCode}. Nothing was saved.`,
      'Output URLs expire; call get_job for fresh ones, then save_outputs again.',
    );
  }
  const declared = Number(res.headers['content-length'] ?? Number.NaN);
  if (declared > req.maxBytes) {
    discard(res.body);
    throw tooBig(req.maxBytes);
  }
  const served = String(res.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  const chunks = res.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  while (headBytes < SNIFF_BYTES) {
    const r = await chunks.next();
    if (r.done) {
      ended = true;
      break;
    }
    head.push(r.value);
    headBytes += r.value.length;
  }
  const first = Buffer.concat(head);
  const family = FAMILY[req.media];
  const media = sniffMedia(first);
  if (!media || (family && media.family !== family)) {
    discard(res.body);
    throw new DownloadError(
      `Refused: the ${req.media} output (served as "${served || 'no content type'}") is ${media ? `a ${media.type} file` : 'not a media file of a type we save'}, judged by its own bytes. Nothing was saved.`,
      'Check the URL in get_job; the host is not serving the media file.',
    );
  }
  const path = `${req.path}.${media.ext}`;
  const part = `${req.path}.part`;
  let bytes = 0;
  async function* all(): AsyncGenerator<Buffer> {
    let c: Buffer | undefined = first;
    while (c !== undefined) {
      bytes += c.length;
      // A missing or lying Content-Length must not fill the disk.
      if (bytes > req.maxBytes) throw tooBig(req.maxBytes);
      yield c;
      if (ended) return;
      const r = await chunks.next();
      c = r.done ? undefined : r.value;
    }
  }
  try {
    await pipeline(Readable.from(all()), createWriteStream(part, { flags: 'w' }));
    await rename(part, path);
  } catch (err) {
    discard(res.body);
    await rm(part, { force: true });
    throw err;
  }
  return { path, bytes, contentType: media.type };
}

/** Drops a body we will not read; undici reports the abort as an error on it, which nobody needs to hear. */
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

function tooBig(max: number): DownloadError {
  return new DownloadError(
    `Refused: the file is larger than the ${Math.round(max / 1024 / 1024)} MB cap (GENPLAT_SAVE_MAX_MB). Nothing was saved.`,
    'Ask the operator to raise GENPLAT_SAVE_MAX_MB, or download it from the URL in get_job.',
  );
}
