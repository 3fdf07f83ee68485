/**
 * Every number README.md states is true of the running server (style.md: "every number in it is generated or
 * tested against the running server"), and the README stays a front door (≤ 300 lines).
 *
 * - The tools sentence that `scripts/generate-docs.ts` writes (tool counts without and with MCP Apps, toolsets,
 *   tools/list tokens, read-only) is parsed back and compared with tools/list from a real server through the
 *   harness's SDK client, on this run's protocol era; the table under it names exactly the listed tools.
 * - Every other number in the README's prose (outside the generated blocks) must be claimed by one rule below,
 *   which checks it against the server (ceilings from `genplat://spend`, the token's lifetime from a real
 *   `confirmation_required`) or the code that decides it (Node gate, SDK protocol versions, the pinned toolchain).
 *   A number no rule claims fails: add a rule, or say it without the number and link the docs/ page.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Tool } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTools, measureTools, modelVisibleTools, TOOLS_LIST_BUDGET_TOKENS } from '../../scripts/measure-tools.js';
import { CONFIRM_TOOL } from '../../src/apps/confirm-tool.js';
import { TOOLSETS } from '../../src/config.js';
import { MIN_NODE } from '../../src/node-version.js';
import { billableExample } from '../helpers/examples.js';
import { APPS_HOST, type Harness, startHarness, structured, text } from '../helpers/harness.js';

const root = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const README = readFileSync(root('README.md'), 'utf8');
const MAX_LINES = 300;
/** A fixed clock for the quote, so the token's lifetime is exact. */
const NOW = Date.parse('2026-11-26T12:00:00.000Z');

/** The README without its generated blocks (those are checked by `generate-docs --check` and the tools test). */
const prose = README.replace(/<!-- generated:(\w+):start -->[\s\S]*?<!-- generated:\1:end -->/g, '');
const generated = (name: string) => {
  const m = new RegExp(`<!-- generated:${name}:start -->([\\s\\S]*?)<!-- generated:${name}:end -->`).exec(README);
  if (!m) throw new Error(`README.md has no generated ${name} block`);
  return m[1]!;
};
const int = (s: string) => Number(s.replace(/,/g, ''));

async function listed(h: Harness): Promise<Tool[]> {
  return (await h.client.listTools()).tools;
}

describe('README facts', () => {
  let plain: Harness;
  let apps: Harness;
  let readOnly: Harness;
  let withPolicy: Harness;
  beforeAll(async () => {
    plain = await startHarness({ config: { confirm: { mode: 'always' } }, now: () => NOW });
    // Over HTTP (a caller): where decide_approval works.
    withPolicy = await startHarness({ config: { approvalsFile: '/etc/genplat/approvals.json' }, owner: 'http-readme' });
    apps = await startHarness({ clientCapabilities: APPS_HOST });
    readOnly = await startHarness({ config: { readOnly: true } });
  });
  afterAll(async () => {
    await Promise.all([plain?.close(), apps?.close(), readOnly?.close(), withPolicy?.close()]);
  });

  it(`is a front door: at most ${MAX_LINES} lines`, () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(MAX_LINES);
  });

  it('states the tools/list a client gets: counts, toolsets and tokens, with and without MCP Apps, and read-only', async () => {
    const block = generated('tools');
    const m =
      /(\d+) tools in (\d+) toolsets over stdio; a client that declares MCP Apps is also listed the App's Confirm\s+button `([a-z_]+)` \((\d+) tools\)\. The model-facing tools\/list \(name, title, description, input\s+schema\) is ([\d,]+) o200k tokens \(budget ([\d,]+)\); over HTTP (\d+) tools, ([\d,]+) tokens\s+\(a tool is listed only where it works[^)]*\);\s+`--read-only` lists (\d+) tools,\s+([\d,]+) tokens\./.exec(
        block,
      );
    expect(m, 'the generated tools sentence (scripts/generate-docs.ts toolsSentence)').not.toBeNull();
    const [, tools, toolsets, confirm, withApps, tokens, budget, httpTools, httpTokens, roTools, roTokens] = m!;

    const plainTools = await listed(plain);
    const appsTools = await listed(apps);
    const roList = await listed(readOnly);
    expect(int(tools!)).toBe(plainTools.length);
    expect(plainTools.map((t) => t.name)).not.toContain(CONFIRM_TOOL);
    expect(confirm).toBe(CONFIRM_TOOL);
    expect(int(withApps!)).toBe(appsTools.length);
    expect(appsTools.map((t) => t.name).sort()).toEqual([...plainTools.map((t) => t.name), CONFIRM_TOOL].sort());
    expect(int(toolsets!)).toBe(TOOLSETS.length);
    expect(int(tokens!)).toBe(measureTools('all', modelVisibleTools(plainTools)).modelFacing.tokens);
    expect(int(budget!)).toBe(TOOLS_LIST_BUDGET_TOKENS);
    const httpList = await listTools({ GENPLAT_TOOLSETS: 'all' }, {}, {}, 'http');
    expect(int(httpTools!)).toBe(httpList.length);
    expect(int(httpTokens!)).toBe(measureTools('all, HTTP', modelVisibleTools(httpList)).modelFacing.tokens);
    expect(int(roTools!)).toBe(roList.length);
    expect(int(roTokens!)).toBe(measureTools('read-only', modelVisibleTools(roList)).modelFacing.tokens);

    // The table under the sentence names exactly the tools a client without Apps is listed on either transport, in
    // every toolset: the `approvals` toolset's only with an approval policy (GENPLAT_APPROVALS), as the sentence says.
    const rows = [...block.matchAll(/^\| ([a-z]+) \| `([a-z_]+)` \| (yes|no) \|/gm)];
    const policyTools = await listed(withPolicy);
    const either = [...new Set([...plainTools, ...policyTools].map((t) => t.name))];
    expect(rows.map((r) => r[2]).sort()).toEqual(either.sort());
    expect(policyTools.filter((t) => !httpList.some((p) => p.name === t.name)).map((t) => t.name)).toEqual([
      'decide_approval',
    ]);
    expect(block).toContain('`GENPLAT_APPROVALS`');
    expect(new Set(rows.map((r) => r[1])).size).toBe(TOOLSETS.length);
  });

  it('every number in the prose is claimed by a rule that checks it', async () => {
    const spend = await plain.client.readResource({ uri: 'genplat://spend' });
    const spent = JSON.parse((spend.contents[0] as { text: string }).text) as Record<string, unknown>;
    const quote = await plain.call('create_talking_video', billableExample('create_talking_video').args(plain.sim));
    expect(structured(quote).status).toBe('confirmation_required');
    const until = /valid until (\d{4}-\d\d-\d\dT[\d:.]+Z)/.exec(`${text(quote)} ${JSON.stringify(quote)}`)?.[1];
    expect(until, 'the quote says until when its token is valid').toBeDefined();
    const tokenMinutes = (Date.parse(until!) - NOW) / 60_000;
    // The protocol versions a client of each era negotiates with this server.
    const eras: string[] = [];
    for (const era of ['legacy', 'modern'] as const) {
      const h = await startHarness({ era });
      try {
        eras.push(String(h.client.getNegotiatedProtocolVersion()));
      } finally {
        await h.close();
      }
    }
    const pinnedNode = JSON.parse(readFileSync(root('package.json'), 'utf8')).devDependencies.node as string;

    const rules: { what: string; re: RegExp; check: (m: RegExpExecArray) => void }[] = [
      {
        what: 'the Node.js the server needs (src/node-version.ts)',
        re: /\b(\d+)\.(\d+) or newer|≥ (\d+)\.(\d+)/g,
        check: (m) => expect([int((m[1] ?? m[3])!), int((m[2] ?? m[4])!)]).toEqual([...MIN_NODE]),
      },
      {
        what: "the Node the npm scripts run on (package.json's pinned `node` devDependency)",
        re: /pinned Node (\d+)\b/g,
        check: (m) => expect(pinnedNode.split('.')[0]).toBe(m[1]),
      },
      {
        what: 'a protocol version a client of either era negotiates with this server',
        re: /\b(\d{4}-\d\d-\d\d)\b/g,
        check: (m) => expect(eras).toContain(m[1]),
      },
      {
        what: "a confirmation token's lifetime, from a real confirmation_required",
        re: /valid for (\d+) minutes/g,
        check: (m) => expect(int(m[1]!)).toBe(tokenMinutes),
      },
      {
        what: 'the default per-call ceiling, from genplat://spend',
        re: /`GENPLAT_MAX_CREDITS_PER_CALL`, default (\d+)/g,
        check: (m) => expect(int(m[1]!)).toBe(spent.max_credits_per_call),
      },
      {
        what: 'the default per-day ceiling, from genplat://spend',
        re: /`GENPLAT_MAX_CREDITS_PER_DAY`, default (\d+)/g,
        check: (m) => expect(int(m[1]!)).toBe(spent.max_credits_per_day),
      },
      { what: 'an HTTP status class', re: /\b5xx\b/g, check: () => {} },
    ];

    const claimed = new Array<boolean>(prose.length).fill(false);
    for (const rule of rules) {
      for (const m of prose.matchAll(rule.re)) {
        rule.check(m as RegExpExecArray);
        claimed.fill(true, m.index, m.index + m[0].length);
      }
    }
    const unclaimed = [...prose.matchAll(/\d+(?:[.,]\d+)*/g)]
      .filter((m) => !claimed[m.index])
      .map((m) => `"${m[0]}" in …${prose.slice(Math.max(0, m.index - 40), m.index + 20).replace(/\n/g, ' ')}…`);
    expect(unclaimed, 'numbers the README states with no check (add a rule here, or link docs/)').toEqual([]);
  });
});
