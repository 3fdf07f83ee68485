import { mkdir, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { z } from 'zod';
import { saveFiles } from '../../src/client/save-files.js';
import { defineTool } from '../../src/define-tool.js';
import { GenplatError, UserInputError } from '../../src/errors.js';
import { decodeHandle, jobKey, MAX_HANDLE_LENGTH } from '../../src/jobs/handle.js';
import { resolveJob } from '../../src/jobs/owner.js';

/** A file-name part from a job identity: only [A-Za-z0-9_-], so no id can name a path. */
const safe = (s: string) => s.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 80) || 'job';

/**
 * The folder inside GENPLAT_OUTPUT_DIR, created if missing, with symlinks resolved: what the user names must
 * stay inside it, whatever `..` or a link in the way says.
 * @throws UserInputError naming `folder` when it points outside.
 */
async function targetDir(root: string, folder: string | undefined): Promise<string> {
  if (folder !== undefined && (isAbsolute(folder) || folder.split(/[\\/]/).includes('..'))) {
    throw new UserInputError('folder', 'must be a relative folder inside GENPLAT_OUTPUT_DIR (no "..", not absolute)');
  }
  await mkdir(root, { recursive: true });
  const realRoot = await realpath(root);
  const dir = resolve(realRoot, folder ?? '.');
  await mkdir(dir, { recursive: true });
  const real = await realpath(dir);
  const rel = relative(realRoot, real);
  if (rel.startsWith('..') || isAbsolute(rel)) {
    throw new UserInputError('folder', 'resolves outside GENPLAT_OUTPUT_DIR (through a symbolic link)');
  }
  return real;
}

export default defineTool({
  name: 'save_outputs',
  title: 'Save job outputs',
  toolset: 'jobs',
  // Over HTTP it would write to the server's disk, not the caller's.
  only: 'stdio',
  description: "Saves a completed job's outputs (and an upscale's original) to the output folder. Free.",
  input: {
    handle: z.string().trim().min(1).max(MAX_HANDLE_LENGTH).describe('handle of a completed job'),
    folder: z.string().trim().min(1).max(200).optional().describe('subfolder of the output folder'),
  },
  output: {
    files: z.array(z.object({ path: z.string(), bytes: z.number().int(), content_type: z.string(), url: z.string() })),
    refused: z.array(z.object({ url: z.string(), reason: z.string() })),
    folder: z.string(),
  },
  // Writes local files (not read-only); a second call rewrites the same names with the same bytes (idempotent);
  // it never deletes anything of the user's (not destructive); it downloads from media hosts (open world).
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run({ handle, folder }, ctx) {
    // HTTP mode always has an authenticated owner; stdio never does (src/define-tool.ts ToolContext.owner).
    if (ctx.owner !== undefined) {
      throw new GenplatError(
        'save_outputs is not available over HTTP: it would write to the server machine, not to your computer.',
        'Use the output URLs from get_job (or the resource_links) to download the files.',
      );
    }
    const ref = decodeHandle(handle);
    if (!ref) throw new UserInputError('handle', 'not a job handle (e.g. actor_video:abc123); see list_jobs');
    const job = await resolveJob(ctx.jobs, ctx.owner, ref, 'handle');
    const { view } = await ctx.poller.read(job.ref);
    if (view.status !== 'completed' || view.outputs.length === 0) {
      throw new UserInputError('handle', `the job is ${view.status}, with no outputs to save yet; wait_for_jobs first`);
    }
    const dir = await targetDir(ctx.config.outputDir, folder);
    const base = safe(jobKey(job.ref));
    const items = view.outputs.map((o, i) => ({ url: o.url, media: o.media, name: `${base}-${i + 1}` }));
    if (job.rec?.originalUrl) items.push({ url: job.rec.originalUrl, media: 'video', name: `${base}-original` });
    // Each output on its own: one the host serves as something else (or from a private address) is refused,
    // with the reason, and the others are still saved.
    const saved = await saveFiles(items, dir, { maxBytes: ctx.config.saveMaxBytes });
    if (saved.files.length === 0) {
      throw new GenplatError(
        `Nothing was saved: ${saved.refused.map((r) => r.reason).join(' ')}`,
        'Check the URLs in get_job; open one yourself only if you trust its host.',
      );
    }
    return { structured: { ...saved, folder: dir } };
  },
});
