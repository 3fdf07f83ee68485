/**
 * save_outputs' downloads, one output at a time: a refused or failed output is reported with its reason and the
 * others are still saved (issue 19 item 4). Names are the caller's, built from [A-Za-z0-9_-] only.
 */
import { join, sep } from 'node:path';
import { DownloadError, downloadTo } from './download.js';
import type { Resolver } from './guarded-lookup.js';

export interface SaveItem {
  url: string;
  media: string;
  /** File name without extension (the extension comes from the file's bytes). */
  name: string;
}

export interface SaveResult {
  files: { path: string; bytes: number; content_type: string; url: string }[];
  refused: { url: string; reason: string }[];
}

export async function saveFiles(
  items: readonly SaveItem[],
  dir: string,
  opts: { maxBytes: number; resolver?: Resolver },
): Promise<SaveResult> {
  const out: SaveResult = { files: [], refused: [] };
  for (const item of items) {
    const path = join(dir, item.name);
    // Belt and braces: names are built from [A-Za-z0-9_-] only, so this can fail only on a bug.
    if (!path.startsWith(dir + sep)) throw new Error('save_outputs: a name escaped the folder');
    try {
      const got = await downloadTo({
        url: item.url,
        media: item.media,
        path,
        maxBytes: opts.maxBytes,
        ...(opts.resolver ? { resolver: opts.resolver } : {}),
      });
      out.files.push({ path: got.path, bytes: got.bytes, content_type: got.contentType, url: item.url });
    } catch (err) {
      // Only our own refusals and the host's failures are per file; a bug or a full disk stops the call.
      if (!(err instanceof DownloadError)) throw err;
      out.refused.push({ url: item.url, reason: err.message });
    }
  }
  return out;
}
