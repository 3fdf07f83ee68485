/**
 * The simulator fetches the media it is given, as the platform does (issue 22 item 5), so a test proves a
 * staged file arrived byte for byte. Rule (opt-in `fetchMedia` simulator option; the sim has no internet):
 * every media URL of a billable POST's JSON body (keys `*_url`, `*_urls` but `webhook_url`) on loopback other
 * than the simulator's own origin (in `--sandbox`: only on the server's own staging origin, `mediaOrigins`) is fetched before the POST is answered; other URLs keep the older convention
 * (public-url.ts: `.invalid` / `unreachable` are inaccessible, everything else is assumed fetched), so tests
 * with https://example.com/x.png run unchanged. A URL that cannot be fetched (error, non-2xx, over 250 MiB,
 * over 60 s) is a 400 naming the field, as the spec says of an inaccessible voice_url ("is rejected").
 * What arrived is logged: field, path (never the query: a presigned signature), size, sha256, first bytes' type.
 */
import { createHash } from 'node:crypto';
import { sniffMedia } from '../client/media-sniff.js';
import { isLoopbackUrl } from './public-url.js';
import { SimHttpError } from './types.js';

export interface FetchedMedia {
  field: string;
  path: string;
  size: number;
  sha256: string;
  type: string | undefined;
}

/** Spec "Limits": reference video and edit sources, 200 MiB; a little above so the cap is ours to refuse first. */
const MAX_FETCH_BYTES = 250 * 1024 * 1024;
/** Loopback transfer of 250 MiB takes seconds; a minute means the source is stuck. */
const FETCH_TIMEOUT_MS = 60_000;

function mediaUrls(body: unknown, field = '', key = ''): { field: string; url: string }[] {
  if (typeof body === 'string') {
    return /_urls?$/.test(key) && key !== 'webhook_url' ? [{ field, url: body }] : [];
  }
  if (Array.isArray(body)) return body.flatMap((v, i) => mediaUrls(v, `${field}[${i}]`, key));
  if (body && typeof body === 'object') {
    return Object.entries(body).flatMap(([k, v]) => mediaUrls(v, field ? `${field}.${k}` : k, k));
  }
  return [];
}

async function fetchOne(field: string, url: string): Promise<FetchedMedia> {
  const refuse = (why: string): never => {
    throw new SimHttpError(400, `${field}: media URL is not accessible (${why})`);
  };
  const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) }).catch(() => refuse('fetch failed'));
  if (!res.ok || !res.body) refuse(`HTTP ${res.status}`);
  const hash = createHash('sha256');
  let size = 0;
  let head: Uint8Array | undefined;
  try {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > MAX_FETCH_BYTES) refuse('larger than 250 MiB');
      head ??= chunk.subarray(0, 64);
      hash.update(chunk);
    }
  } catch (err) {
    if (err instanceof SimHttpError) throw err;
    refuse('download failed');
  }
  return { field, path: new URL(url).pathname, size, sha256: hash.digest('hex'), type: head && sniffMedia(head)?.type };
}

export class MediaFetcher {
  private list: FetchedMedia[] = [];

  /** `fetches`: which loopback URLs are fetched (every one with `fetchMedia`; the sandbox: its staging origin). */
  constructor(
    private readonly selfOrigin: () => string,
    private readonly fetches: (url: string) => boolean = isLoopbackUrl,
  ) {}

  /** Fetches the loopback media URLs of `json` (see the rule above). @throws SimHttpError 400 naming the field. */
  async fetchAll(json: unknown): Promise<void> {
    for (const { field, url } of mediaUrls(json)) {
      if (!this.fetches(url) || url.startsWith(`${this.selfOrigin()}/`)) continue;
      this.list.push(await fetchOne(field, url));
    }
  }

  entries(): FetchedMedia[] {
    return [...this.list];
  }
}
