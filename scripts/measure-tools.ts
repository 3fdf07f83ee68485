/**
 * Measures the tools/list answer a host receives: bytes and o200k_base tokens (js-tiktoken) of the whole
 * JSON and of the model-facing part (name, title, description, inputSchema — what hosts put in the model's
 * context), plus the largest tools. Used by `npm run bench`, by the budget test, and runnable alone:
 *
 *   node dist/scripts/measure-tools.js            # prints a table for default / all / read-only
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ClientCapabilities, Tool } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { getEncoding, type Tiktoken } from 'js-tiktoken';
import { createPlatformClient } from '../src/client/index.js';
import { type CliArgs, loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { buildServer } from '../src/server.js';
import { openSqliteStore } from '../src/store/sqlite.js';
import type { ToolTransport } from '../src/tool-visibility.js';

/** The model-facing tools/list budget, all toolsets (issue 6 target; asserted by test/invariants/tools-list-budget.test.ts). */
export const TOOLS_LIST_BUDGET_TOKENS = 4_000;

/** Client capabilities of a host that renders MCP Apps (the `io.modelcontextprotocol/ui` extension). */
export const APPS_CLIENT = {
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
} as ClientCapabilities;

export interface Size {
  bytes: number;
  tokens: number;
}

export interface ToolsListMeasure {
  label: string;
  tools: number;
  /** name, title, description, inputSchema of every tool. */
  modelFacing: Size;
  /** The whole `tools` array as sent (annotations, outputSchema, _meta…). */
  whole: Size;
  /** Model-facing size per tool, largest first. */
  largest: ({ name: string } & Size)[];
}

let encoder: Tiktoken | undefined;
/** o200k_base tokens (the GPT-4o / o-series tokenizer; a fair proxy for other hosts' tokenizers). */
export function tokens(text: string): number {
  encoder ??= getEncoding('o200k_base');
  return encoder.encode(text).length;
}

function size(value: unknown): Size {
  const json = JSON.stringify(value);
  return { bytes: Buffer.byteLength(json, 'utf8'), tokens: tokens(json) };
}

/** The part of a tool definition hosts show the model. */
export function modelFacing(t: Tool): Pick<Tool, 'name' | 'title' | 'description' | 'inputSchema'> {
  return {
    name: t.name,
    ...(t.title !== undefined ? { title: t.title } : {}),
    ...(t.description !== undefined ? { description: t.description } : {}),
    inputSchema: t.inputSchema,
  };
}

/** Sizes of one tools/list answer. */
export function measureTools(label: string, tools: Tool[], top = 5): ToolsListMeasure {
  const per = tools
    .map((t) => ({ name: t.name, ...size(modelFacing(t)) }))
    .sort((a, b) => b.tokens - a.tokens || b.bytes - a.bytes);
  return {
    label,
    tools: tools.length,
    modelFacing: size(tools.map(modelFacing)),
    whole: size(tools),
    largest: per.slice(0, top),
  };
}

/**
 * tools/list from a real server built in process (no network: nothing is sent while listing), through a
 * real SDK client declaring `capabilities`, for the configuration `env` + `cli` describe. A client that declares
 * MCP Apps (`APPS_CLIENT`) is also shown the App-only Confirm tool (src/protocol/app-only.ts).
 */
export async function listTools(
  env: Record<string, string> = {},
  cli: Partial<CliArgs> = {},
  capabilities: ClientCapabilities = {},
  transport: ToolTransport = 'stdio',
): Promise<Tool[]> {
  return withLiveServer(env, cli, capabilities, async (client) => (await client.listTools()).tools, transport);
}

/** The caller an HTTP listing is built for: every HTTP request has its person (src/tool-visibility.ts). */
const HTTP_CALLER = 'http-measure';

/**
 * Runs `use` with a client connected in process to a server built whole (`buildServer`, as unbundled) for one
 * configuration, on a fresh store; the platform is a loopback address nothing listens on.
 */
export async function withLiveServer<T>(
  env: Record<string, string>,
  cli: Partial<CliArgs>,
  capabilities: ClientCapabilities,
  use: (client: Client) => Promise<T>,
  transport: ToolTransport = 'stdio',
): Promise<T> {
  const stateDir = await mkdtemp(join(tmpdir(), 'genplat-measure-'));
  const log = createLogger('error', () => {});
  const config = loadConfig({ command: 'serve', sandbox: false, readOnly: false, http: false, ...cli } as CliArgs, {
    // A loopback address nothing listens on: listing tools must not need the platform.
    GENPLAT_API_KEY: 'sk-measure-only',
    GENPLAT_BASE_URL: 'http://127.0.0.1:9/api',
    GENPLAT_STATE_DIR: stateDir,
    ...env,
  });
  const jobs = await openSqliteStore(stateDir);
  const platform = createPlatformClient({
    baseUrl: config.baseUrl ?? '',
    apiKey: config.apiKey ?? '',
    vendors: config.vendors,
    logger: log,
  });
  // Over HTTP the server is built for a caller, which lists the HTTP-only tools (and drops the stdio-only ones).
  const built = buildServer({
    config,
    client: platform,
    jobs,
    log,
    ...(transport === 'http' ? { owner: HTTP_CALLER } : {}),
  });
  const client = new Client({ name: 'measure-tools', version: '0.0.0' }, { capabilities });
  const [a, b] = InMemoryTransport.createLinkedPair();
  try {
    await Promise.all([built.server.connect(b), client.connect(a)]);
    return await use(client);
  } finally {
    await client.close();
    await built.close();
    await platform.close();
    await jobs.close();
    await rm(stateDir, { recursive: true, force: true });
  }
}

/**
 * The tools a model sees: hosts hide app-only tools (`_meta.ui.visibility: ["app"]`, the App's Confirm
 * button) from the model, so they cost it no tokens. The budget test and the bench both count through this.
 */
export function modelVisibleTools(tools: Tool[]): Tool[] {
  return tools.filter(
    (t) => JSON.stringify((t._meta as { ui?: { visibility?: string[] } } | undefined)?.ui?.visibility) !== '["app"]',
  );
}

/** The configurations worth comparing (model-visible tools): the default toolsets, all of them, and read-only. */
export async function measureConfigurations(): Promise<ToolsListMeasure[]> {
  return [
    measureTools('default toolsets', modelVisibleTools(await listTools())),
    measureTools('all toolsets', modelVisibleTools(await listTools({ GENPLAT_TOOLSETS: 'all' }))),
    measureTools('all toolsets, HTTP', modelVisibleTools(await listTools({ GENPLAT_TOOLSETS: 'all' }, {}, {}, 'http'))),
    measureTools('read-only', modelVisibleTools(await listTools({}, { readOnly: true }))),
  ];
}

export function formatMeasures(ms: ToolsListMeasure[]): string {
  const lines = ['| configuration | tools | model-facing bytes | model-facing tokens | whole bytes | whole tokens |'];
  lines.push('|---|---:|---:|---:|---:|---:|');
  for (const m of ms) {
    lines.push(
      `| ${m.label} | ${m.tools} | ${m.modelFacing.bytes} | ${m.modelFacing.tokens} | ${m.whole.bytes} | ${m.whole.tokens} |`,
    );
  }
  const all = ms.find((m) => m.label === 'all toolsets') ?? ms[0];
  if (all) {
    lines.push('', `Largest tools (model-facing, ${all.label}):`);
    for (const t of all.largest)
      lines.push(`  ${t.name.padEnd(28)} ${String(t.tokens).padStart(5)} tokens ${t.bytes} bytes`);
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  measureConfigurations().then(
    (ms) => process.stdout.write(`${formatMeasures(ms)}\n`),
    (err: unknown) => {
      process.stderr.write(`measure-tools: ${String(err)}\n`);
      process.exit(1);
    },
  );
}
