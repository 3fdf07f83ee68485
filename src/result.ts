/**
 * The only `CallToolResult` builders (style.md 2.2): tools return data, the runtime turns it into results here.
 *
 * SDK finding (1.32.2, verified in `server/mcp.js` `validateToolOutput` and `client/index.js` `callTool`):
 * the *server* skips output-schema validation when `isError` is true, but the v1 SDK *client* validates
 * `structuredContent` against the tool's `outputSchema` whenever it is present, even on an `isError` result,
 * and throws `McpError(InvalidParams)` on a mismatch. The v2 client no longer does, but v1-based hosts and
 * frameworks are still common. Every tool of ours declares an output schema, so an
 * `{error: {...}}` object there would make SDK-based hosts throw instead of showing the error. Error results
 * therefore carry text only ("what happened + next step"), which every host shows to the model.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ApiError, ConfigurationError, GenplatError, PlatformError, UserInputError } from './errors.js';
import type { JobEnvelope } from './jobs/envelope.js';
import { type Logger, redact } from './log.js';

export interface ResourceLink {
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
}

/** The resource URI of one job (read by `resources/`). Handles are already URI-safe (percent-encoded parts). */
export function jobResourceUri(handle: string): string {
  return `genplat://jobs/${handle}`;
}

const MIME: Record<string, string> = { video: 'video/mp4', image: 'image/png', audio: 'audio/mpeg' };

function linkBlocks(links: ResourceLink[]): CallToolResult['content'] {
  return links.map((l) => ({
    type: 'resource_link' as const,
    uri: l.uri,
    name: l.name,
    ...(l.mimeType ? { mimeType: l.mimeType } : {}),
    ...(l.description ? { description: l.description } : {}),
  }));
}

/** Links for an envelope: each output, then the job's own resource. */
export function envelopeLinks(env: JobEnvelope): ResourceLink[] {
  const links: ResourceLink[] = [];
  for (const [i, o] of (env.outputs ?? []).entries()) {
    const mimeType = MIME[o.media];
    links.push({ uri: o.url, name: `${o.media} ${i + 1}`, ...(mimeType ? { mimeType } : {}) });
  }
  if (env.handle) {
    links.push({
      uri: jobResourceUri(env.handle),
      name: env.handle,
      mimeType: 'application/json',
      description: 'job record',
    });
  }
  return links;
}

/**
 * A job envelope result. `structuredContent` is the envelope itself (self-sufficient: some hosts show the
 * model nothing else), mirrored as JSON text, followed by `resource_link`s for outputs and the job.
 */
export function envelopeResult(envelope: JobEnvelope, links?: ResourceLink[]): CallToolResult {
  const structured = JSON.parse(redact(JSON.stringify(envelope))) as Record<string, unknown>;
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }, ...linkBlocks(links ?? envelopeLinks(envelope))],
    structuredContent: structured,
  };
}

/** A read tool's result: `structured` must match the tool's output schema. */
export function readResult(structured: object, links?: ResourceLink[], isError?: boolean): CallToolResult {
  const safe = JSON.parse(redact(JSON.stringify(structured))) as Record<string, unknown>;
  return {
    content: [{ type: 'text', text: JSON.stringify(safe) }, ...linkBlocks(links ?? [])],
    structuredContent: safe,
    ...(isError ? { isError: true } : {}),
  };
}

/** The text of an error result: what happened, the request id when known, the next step. */
export function errorText(err: GenplatError): string {
  const parts: string[] = [];
  if (err instanceof UserInputError) {
    parts.push(`Invalid argument "${err.field}": ${err.rule}.`);
  } else if (err instanceof ConfigurationError) {
    parts.push(`Configuration problem: ${err.problems.join('; ')}.`);
  } else {
    parts.push(err.message);
  }
  if (err instanceof PlatformError && err.requestId) parts.push(`Request id: ${err.requestId}.`);
  if (err instanceof ApiError && !/\(\d{3}/.test(err.message)) parts.push(`HTTP status ${err.status}.`);
  parts.push(`Next step: ${err.nextStep}`);
  return redact(parts.join(' '));
}

/**
 * Any thrown value → an `isError` result. Our errors get "what happened + next step"; anything else is a
 * bug: a generic message for the agent and the full (redacted) detail on stderr.
 */
export function toolError(err: unknown, log?: Logger): CallToolResult {
  if (err instanceof GenplatError) {
    return { content: [{ type: 'text', text: errorText(err) }], isError: true };
  }
  const detail = err instanceof Error ? `${err.name}: ${err.message}\n${err.stack ?? ''}` : String(err);
  if (log) log.error('unexpected error in a tool handler', { detail });
  else process.stderr.write(`${redact(`[genplat-mcp] error unexpected error in a tool handler ${detail}`)}\n`);
  return {
    content: [
      {
        type: 'text',
        text: 'Internal error in genplat-mcp; the details were written to the server log (stderr). Next step: try again; if it repeats, report it with the server log. Use list_jobs to check whether a job was created before resubmitting.',
      },
    ],
    isError: true,
  };
}
