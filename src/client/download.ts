/**
 * Downloads one job output to a file, for save_outputs. Never carries the API key (media URLs are public,
 * invariant 5). Each hop of a redirect chain must be a public media URL by the same rule as inputs
 * (src/guards/url.ts; the sandbox's own origin is trusted there), so a hostile CDN answer cannot turn this
 * process into a probe of the user's network. Size is capped before and while reading; the content type
 * must be of the output's media family. The file appears only once complete (written beside, then renamed).
 */
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GenplatError } from '../errors.js';
import { publicMediaUrlProblem } from '../guards/url.js';

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
  /** Absolute target path (the caller has confined it to the output folder). */
  path: string;
  maxBytes: number;
}

export interface Downloaded {
  path: string;
  bytes: number;
  contentType: string;
}

const FAMILY: Record<string, string> = { video: 'video/', image: 'image/', audio: 'audio/', avatar: 'image/' };

export async function downloadTo(req: DownloadRequest): Promise<Downloaded> {
  let url = req.url;
  let res: Response | undefined;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const problem = publicMediaUrlProblem(url);
    if (problem) {
      throw new DownloadError(
        `Refused to download ${hop === 0 ? 'the output URL' : `a redirect target (hop ${hop})`}: it ${problem}. Nothing was saved.`,
        'The output URL or its redirect points at a non-public host; open the URL yourself only if you trust it.',
      );
    }
    res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(HEAD_TIMEOUT_MS) });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      url = new URL(location, url).href;
      continue;
    }
    break;
  }
  if (!res || (res.status >= 300 && res.status < 400)) {
    await res?.body?.cancel();
    throw new DownloadError(`Refused: more than ${MAX_REDIRECTS} redirects. Nothing was saved.`, 'Try again later.');
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    throw new DownloadError(
      `The media host answered HTTP ${res.status}. Nothing was saved.`,
      'Output URLs expire; call get_job for fresh ones, then save_outputs again.',
    );
  }
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const family = FAMILY[req.media] ?? '';
  if (!contentType.startsWith(family)) {
    await res.body.cancel();
    throw new DownloadError(
      `Refused: the ${req.media} output was served as "${contentType || 'no content type'}", not ${family}*. Nothing was saved.`,
      'Check the URL in get_job; the host is not serving the media file.',
    );
  }
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (declared > req.maxBytes) {
    await res.body.cancel();
    throw tooBig(req.maxBytes);
  }
  const part = `${req.path}.part`;
  let bytes = 0;
  try {
    const counted = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream).on('data', (c: Buffer) => {
      bytes += c.length;
      // A missing or lying Content-Length must not fill the disk.
      if (bytes > req.maxBytes) counted.destroy(tooBig(req.maxBytes));
    });
    await pipeline(counted, createWriteStream(part, { flags: 'w' }));
    await rename(part, req.path);
  } catch (err) {
    await rm(part, { force: true });
    throw err;
  }
  return { path: req.path, bytes, contentType };
}

function tooBig(max: number): DownloadError {
  return new DownloadError(
    `Refused: the file is larger than the ${Math.round(max / 1024 / 1024)} MB cap (GENPLAT_SAVE_MAX_MB). Nothing was saved.`,
    'Ask the operator to raise GENPLAT_SAVE_MAX_MB, or download it from the URL in get_job.',
  );
}
