/**
 * Writes the generated parts of the docs from the registries and the real tools/list, so the docs cannot drift
 * from the code: in README.md the tools table with its counts and token figures (from a server built in process,
 * as a host lists it), the endpoint → tool table and the resources table; in docs/configuration.md the settings
 * table. `--check` exits 1 when any file is not up to date (`npm test` runs it after the build).
 * `test/contract/readme-facts.test.ts` checks the README's numbers against a running server as well.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ALL_RESOURCES } from '../resources/index.js';
import { CONFIRM_TOOL } from '../src/apps/confirm-tool.js';
import { TOOLSETS } from '../src/config.js';
import { CONFIG_DOCS } from '../src/config-docs.js';
import { ALL_TOOLS } from '../tools/index.js';
import { endpointTable } from './endpoint-table.js';
import { APPS_CLIENT, listTools, measureTools, modelVisibleTools, TOOLS_LIST_BUDGET_TOKENS } from './measure-tools.js';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function firstSentence(text: string): string {
  const m = /^(.*?[.!?])(\s|$)/.exec(text.trim());
  return m?.[1] ?? text.trim();
}

function configTable(): string {
  const rows = CONFIG_DOCS.map((d) => {
    const name = [d.env && `\`${d.env}\``, d.flag && `\`${d.flag}\``].filter(Boolean).join(' / ');
    return `| ${name} | ${cell(d.meaning)} | ${cell(d.default)} |`;
  });
  return ['## Settings', '', '| env / flag | meaning | default |', '|---|---|---|', ...rows].join('\n');
}

/** The figures the README states about tools/list, read from a real server (every toolset, as by default). */
export interface ToolsListFacts {
  tools: number;
  withApps: number;
  tokens: number;
  /** Over HTTP (a caller): the tools that work there (src/tool-visibility.ts). */
  httpTools: number;
  httpTokens: number;
  readOnlyTools: number;
  readOnlyTokens: number;
}

export async function toolsListFacts(): Promise<ToolsListFacts> {
  const all = await listTools({ GENPLAT_TOOLSETS: 'all' });
  const apps = await listTools({ GENPLAT_TOOLSETS: 'all' }, {}, APPS_CLIENT);
  const readOnly = await listTools({}, { readOnly: true });
  const http = await listTools({ GENPLAT_TOOLSETS: 'all' }, {}, {}, 'http');
  // The `approvals` toolset is listed only with an approval policy; a tool only where it works (src/tool-visibility.ts).
  const byDefault = ALL_TOOLS.filter((t) => t.toolset !== 'approvals' && t.only !== 'http');
  if (all.length !== byDefault.length)
    throw new Error(`tools/list has ${all.length} tools, ALL_TOOLS without a policy ${byDefault.length}`);
  if (!apps.some((t) => t.name === CONFIRM_TOOL)) throw new Error(`an Apps client is not listed ${CONFIRM_TOOL}`);
  return {
    tools: all.length,
    withApps: apps.length,
    tokens: measureTools('all', modelVisibleTools(all)).modelFacing.tokens,
    httpTools: http.length,
    httpTokens: measureTools('all, HTTP', modelVisibleTools(http)).modelFacing.tokens,
    readOnlyTools: readOnly.length,
    readOnlyTokens: measureTools('read-only', modelVisibleTools(readOnly)).modelFacing.tokens,
  };
}

const n = (x: number) => x.toLocaleString('en-US');

/** The sentence above the tools table; `test/contract/readme-facts.test.ts` parses it back. */
export function toolsSentence(f: ToolsListFacts): string {
  return [
    `${f.tools} tools in ${TOOLSETS.length} toolsets over stdio; a client that declares MCP Apps is also listed the App's Confirm`,
    `button \`${CONFIRM_TOOL}\` (${f.withApps} tools). The model-facing tools/list (name, title, description, input`,
    `schema) is ${n(f.tokens)} o200k tokens (budget ${n(TOOLS_LIST_BUDGET_TOKENS)}); over HTTP ${f.httpTools} tools, ${n(f.httpTokens)} tokens`,
    '(a tool is listed only where it works: `request_upload` over HTTP, `save_outputs` over stdio);',
    `\`--read-only\` lists ${f.readOnlyTools} tools,`,
    `${n(f.readOnlyTokens)} tokens. Billable tools go through the cost guard and accept \`confirmation_token\` and`,
    '`allow_duplicate`. The `approvals` toolset (`decide_approval`) is listed only with an approval policy',
    '(`GENPLAT_APPROVALS`, docs/approvals.md) over HTTP, never with `--read-only`, and is not counted above.',
  ].join('\n');
}

function toolsTable(facts: ToolsListFacts): string {
  const out: string[] = [toolsSentence(facts), '', '| toolset | tool | billable | what it does |', '|---|---|---|---|'];
  for (const toolset of TOOLSETS) {
    for (const t of ALL_TOOLS.filter((x) => x.toolset === toolset).sort((a, b) => a.name.localeCompare(b.name))) {
      out.push(`| ${toolset} | \`${t.name}\` | ${t.billable ? 'yes' : 'no'} | ${cell(firstSentence(t.description))} |`);
    }
  }
  const known = new Set(ALL_TOOLS.map((t) => t.name));
  const endpoints = endpointTable();
  for (const { tool } of endpoints) {
    const name = tool.split(/[ /]/)[0]!;
    if (!known.has(name)) throw new Error(`endpoint table names an unknown tool: ${name}`);
  }
  out.push(
    '',
    '### Every endpoint of the platform, and the tool that reaches it',
    '',
    '| endpoint | tool |',
    '|---|---|',
  );
  for (const { endpoint, tool } of endpoints)
    out.push(`| \`${endpoint}\` | ${tool.includes('`') ? tool : `\`${tool}\``} |`);
  return out.join('\n');
}

function resourcesTable(): string {
  const rows = ALL_RESOURCES.map((r) => {
    const uri = r.kind === 'static' ? r.uri : r.uriTemplate;
    return `| \`${uri}\` | ${cell(r.title)} | ${cell(r.description)} |`;
  });
  return ['| URI | title | contents |', '|---|---|---|', ...rows].join('\n');
}

function replaceBlock(file: string, text: string, name: string, body: string): string {
  const start = `<!-- generated:${name}:start -->`;
  const end = `<!-- generated:${name}:end -->`;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${file} lacks the ${name} markers`);
  if (text.indexOf(start, i + 1) >= 0) throw new Error(`${file} has the ${name} markers twice`);
  return `${text.slice(0, i + start.length)}\n<!-- generated by scripts/generate-docs.ts; do not edit by hand -->\n${body}\n${text.slice(j)}`;
}

/** Which generated block lives in which file (paths from the repository root). */
async function targets(): Promise<{ file: string; blocks: [name: string, body: string][] }[]> {
  const facts = await toolsListFacts();
  return [
    {
      file: 'README.md',
      blocks: [
        ['tools', toolsTable(facts)],
        ['resources', resourcesTable()],
      ],
    },
    { file: 'docs/configuration.md', blocks: [['config', configTable()]] },
  ];
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const stale: string[] = [];
  for (const { file, blocks } of await targets()) {
    const path = fileURLToPath(new URL(`../../${file}`, import.meta.url));
    const before = readFileSync(path, 'utf8');
    let after = before;
    for (const [name, body] of blocks) after = replaceBlock(file, after, name, body);
    // A block that moved to another file must not stay behind, stale, in this one.
    for (const other of ['config', 'tools', 'resources'].filter((b) => !blocks.some(([name]) => name === b))) {
      if (after.includes(`<!-- generated:${other}:start -->`))
        throw new Error(`${file} still holds the ${other} block`);
    }
    if (after === before) continue;
    stale.push(file);
    if (!check) writeFileSync(path, after);
  }
  if (check && stale.length > 0) {
    console.error(
      `Generated docs out of date in ${stale.join(', ')}: run \`npm run docs:generate\` and commit the result.`,
    );
    process.exit(1);
  }
  console.error(
    check
      ? 'Generated docs are up to date.'
      : `Generated docs written${stale.length ? `: ${stale.join(', ')}` : ' (no change)'}.`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    // The tools/list figures come from a real server, whose store needs node:sqlite: the pinned Node 22.
    const hint = /node:sqlite/.test(message)
      ? '; run it through npm (`npm run check:generated`, `npm run docs:generate`): npm scripts use the pinned Node 22.'
      : '';
    console.error(`generate-docs: ${message}${hint}`);
    process.exit(1);
  });
}
