/**
 * `defineResource` / `defineResourceTemplate`: a resource is data plus a reader, like a tool (style.md 2.1).
 * Readers return plain JSON-able values; `registerResource` wraps them as `application/json` contents,
 * turns our errors into MCP errors with the usual "what happened + next step" text, and keeps completion
 * failures from surfacing (a completion is a hint; an empty list is the honest answer when the platform is down).
 */

import type { McpServer, ReadResourceResult, Variables } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode, ResourceTemplate, UriTemplate } from '@modelcontextprotocol/server';
import type { ToolContext } from './define-tool.js';
import { GenplatError, UserInputError } from './errors.js';
import { redact } from './log.js';
import { errorText } from './result.js';
import { metrics } from './telemetry/metrics.js';

/** What resources may use: the tool context minus the per-call parts. */
export type ResourceDeps = Omit<ToolContext, 'signal' | 'progress'>;

export type TemplateVariables = Variables;

interface Common {
  /** Registration name, unique across resources. */
  name: string;
  title: string;
  /** One sentence: what the JSON holds and which tool uses it. */
  description: string;
}

export interface StaticResourceSpec extends Common {
  kind: 'static';
  uri: string;
  read(deps: ResourceDeps, uri: URL): Promise<unknown>;
}

export interface TemplateResourceSpec extends Common {
  kind: 'template';
  /** RFC 6570 template, e.g. `genplat://voices{?language,gender}`. */
  uriTemplate: string;
  /** Concrete resources to show in `resources/list` (optional: query templates have none). */
  list?(deps: ResourceDeps): Promise<{ uri: string; name: string; description?: string }[]>;
  /** Completion per variable: all candidate values; prefix filtering and the 100-item cap are done here. */
  complete?: Record<string, (deps: ResourceDeps, context: Record<string, string>) => Promise<string[]>>;
  read(deps: ResourceDeps, uri: URL, variables: TemplateVariables): Promise<unknown>;
}

export type ResourceSpec = StaticResourceSpec | TemplateResourceSpec;

export function defineResource(spec: Omit<StaticResourceSpec, 'kind'>): StaticResourceSpec {
  return { kind: 'static', ...spec };
}

export function defineResourceTemplate(spec: Omit<TemplateResourceSpec, 'kind'>): TemplateResourceSpec {
  return { kind: 'template', ...spec };
}

/** A template variable as one string (arrays, from exploded variables, give their first item). */
export function variable(vars: TemplateVariables, name: string): string | undefined {
  const v = vars[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? undefined : s;
}

/**
 * SDK 1.32's matcher turns `{?a,b}` into the regex `\?a=([^&]+)&b=([^&]+)`: both parameters required, in
 * that order, undecoded. For a filter template (`base{?a,b}`) any subset in any order is what a client
 * means, so this matcher reads the query with URLSearchParams (decoded) and accepts only the declared
 * names. `toString()` is unchanged, so listing and completion see the declared template.
 */
class QueryTemplate extends UriTemplate {
  constructor(
    template: string,
    private readonly base: string,
    private readonly names: string[],
  ) {
    super(template);
  }

  override match(uri: string): Variables | null {
    if (!uri.startsWith(this.base)) return null;
    const rest = uri.slice(this.base.length);
    if (rest !== '' && !rest.startsWith('?')) return null;
    const out: Variables = {};
    for (const [k, v] of new URLSearchParams(rest)) {
      if (!this.names.includes(k)) return null;
      if (v !== '') out[k] = v;
    }
    return out;
  }
}

/** `genplat://x{?a,b}` → a lenient QueryTemplate; any other template keeps the SDK's matcher. */
function uriTemplate(template: string): string | UriTemplate {
  const m = /^([^{}]+)\{\?([\w,]+)\}$/.exec(template);
  return m ? new QueryTemplate(template, m[1]!, m[2]!.split(',')) : template;
}

const MIME = 'application/json';
/** MCP completion results carry at most 100 values (spec: `completion/complete`). */
const MAX_COMPLETIONS = 100;

function json(uri: URL, value: unknown): ReadResourceResult {
  return { contents: [{ uri: uri.href, mimeType: MIME, text: redact(JSON.stringify(value)) }] };
}

/** Our errors → MCP errors: bad input is InvalidParams, anything from the platform is InternalError with its text. */
function toMcpError(err: unknown): unknown {
  if (err instanceof ProtocolError) return err;
  if (err instanceof UserInputError) return new ProtocolError(ProtocolErrorCode.InvalidParams, errorText(err));
  if (err instanceof GenplatError) return new ProtocolError(ProtocolErrorCode.InternalError, errorText(err));
  return err;
}

async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const value = await fn();
    metrics.operation('resources/read', undefined, (performance.now() - started) / 1000);
    return value;
  } catch (err) {
    const mcpErr = toMcpError(err);
    metrics.operation('resources/read', mcpErrorType(mcpErr), (performance.now() - started) / 1000);
    throw mcpErr;
  }
}

/** The MCP conventions' `error.type` of a failed request: its JSON-RPC error code. */
const mcpErrorType = (err: unknown) => (err instanceof ProtocolError ? String(err.code) : '_OTHER');

/** Registers one spec. Must run before `connect()` for the first resource (mcp-notes 2.1). */
export function registerResource(server: McpServer, spec: ResourceSpec, deps: ResourceDeps): void {
  const meta = { title: spec.title, description: spec.description, mimeType: MIME };
  if (spec.kind === 'static') {
    server.registerResource(spec.name, spec.uri, meta, (uri) =>
      guarded(async () => json(uri, await spec.read(deps, uri))),
    );
    return;
  }
  const complete = Object.fromEntries(
    Object.entries(spec.complete ?? {}).map(([name, values]) => [
      name,
      async (value: string, context?: { arguments?: Record<string, string> }) => {
        try {
          const prefix = value.toLowerCase();
          const all = await values(deps, context?.arguments ?? {});
          return all.filter((v) => v.toLowerCase().startsWith(prefix)).slice(0, MAX_COMPLETIONS);
        } catch (err) {
          deps.log.debug('resource completion failed', { resource: spec.name, variable: name, error: String(err) });
          return [];
        }
      },
    ]),
  );
  const list = spec.list;
  // The SDK builds resources/list from every template's listing: one that throws (platform down, key
  // revoked) would fail the whole list, hiding the local resources too. Like a completion, it offers nothing.
  const listed = async () => {
    try {
      return (await (list as NonNullable<typeof list>)(deps)).map((r) => ({ ...r, mimeType: MIME }));
    } catch (err) {
      deps.log.warn('resource listing failed; listed without it', { resource: spec.name, error: String(err) });
      return [];
    }
  };
  const template = new ResourceTemplate(uriTemplate(spec.uriTemplate), {
    list: list ? async () => ({ resources: await listed() }) : undefined,
    complete,
  });
  server.registerResource(spec.name, template, meta, (uri, vars) =>
    guarded(async () => json(uri, await spec.read(deps, uri, vars))),
  );
}
