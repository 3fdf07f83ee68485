import { z } from 'zod';
import { defineTool } from '../../src/define-tool.js';
import { GenplatError } from '../../src/errors.js';
import { MAX_LOCAL_BYTES } from '../../src/files/limits.js';
import { UPLOAD_CANNOT_REACH_PLATFORM, UPLOAD_LOOPBACK_NOTE, UPLOAD_NEEDS_HTTP } from '../../src/files/wording.js';
import { isLoopbackBind } from '../../src/transports/http-guards.js';

/**
 * `request_upload` (issue 22 item 4): a person on a host without a file system (Claude.ai, ChatGPT, a chat-ops
 * bot) uploads through a page this server serves; the bytes never pass through the model. The link, its single
 * use, expiry and owner binding are src/files/uploads.ts; the page and the checks on the bytes upload-route.ts.
 */
export default defineTool({
  name: 'request_upload',
  title: 'Request an upload link',
  toolset: 'jobs',
  // stdio: the person names the file by its local path; nothing serves an upload page there.
  only: 'http',
  description: 'Upload link (one use, 15 min) to show the user; upload:<id> then fits any media field. Free.',
  input: {
    kind: z.enum(['image', 'audio', 'video']).describe('media'),
    filename: z.string().trim().min(1).max(200).optional().describe('name hint'),
  },
  output: {
    url: z.string(),
    expires_at: z.string(),
    reference: z.string(),
    kind: z.string(),
    max_bytes: z.number().int(),
    /** Present when the link names a loopback address: only a browser on the server's machine opens it. */
    note: z.string().optional(),
  },
  // It records a pending upload (not read-only); each call makes a new link (not idempotent); it deletes nothing;
  // the link is reached by the person's browser, not by this server (closed world).
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run({ kind, filename }, ctx) {
    // Not listed on stdio (src/tool-visibility.ts); a server built without file services refuses the same way.
    if (ctx.owner === undefined || !ctx.files)
      throw new GenplatError(UPLOAD_NEEDS_HTTP.message, UPLOAD_NEEDS_HTTP.next);
    // The file would be taken and then refused at send time: say so now, before the person uploads anything.
    if (!ctx.files.selfStager && !ctx.config.files.staging) {
      throw new GenplatError(UPLOAD_CANNOT_REACH_PLATFORM.message, UPLOAD_CANNOT_REACH_PLATFORM.next);
    }
    const link = await ctx.files.uploadLink(ctx.owner, kind, filename);
    const local = isLoopbackBind(new URL(link.url).hostname);
    return {
      structured: { ...link, kind, max_bytes: MAX_LOCAL_BYTES[kind], ...(local ? { note: UPLOAD_LOOPBACK_NOTE } : {}) },
    };
  },
});
