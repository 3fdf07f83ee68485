/**
 * The tool surface as a reviewed artifact (style.md "the tool surface is a reviewed artifact"): a snapshot
 * of tools/list with every toolset on. Any diff here is a public API change: review it, then update with
 * `npx vitest run test/contract -u`. Also checks the toolset and read-only filters.
 */

import { afterAll, describe, expect, it } from 'vitest';
import { CONFIRM_TOOL } from '../../src/apps/confirm-tool.js';
import { ALL_TOOLS } from '../../tools/index.js';
import { APPS_HOST, type Harness, startHarness } from '../helpers/harness.js';

const open: Harness[] = [];
afterAll(async () => {
  for (const h of open) await h.close();
});

/** What a stdio server can list (these harnesses have no caller): a tool only where it works (tool-visibility.ts). */
const onStdio = ALL_TOOLS.filter((t) => t.only !== 'http');

async function listWith(config: Parameters<typeof startHarness>[0] = {}) {
  const h = await startHarness(config);
  open.push(h);
  return (await h.client.listTools()).tools;
}

describe('tools/list', () => {
  it('shows a client that declared no MCP Apps support every tool but the App-only ones', async () => {
    const plain = await listWith({ config: { toolsets: ['video', 'jobs'] } });
    const expected = onStdio.filter((t) => t.toolset === 'video' || t.toolset === 'jobs').map((t) => t.name);
    expect(plain.map((t) => t.name).sort()).toEqual([...expected].sort());
    // Declaring the extension without the View's MIME type is not enough: it could not render the card.
    const other = await listWith({
      config: { toolsets: ['video', 'jobs'] },
      clientCapabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html'] } } },
    });
    expect(other.map((t) => t.name)).not.toContain(CONFIRM_TOOL);
  });

  it('matches the reviewed snapshot', async () => {
    // As an MCP Apps host sees it: every tool (stdio's and HTTP's), the App-only Confirm button included.
    const both = [
      ...(await listWith({ clientCapabilities: APPS_HOST })),
      ...(await listWith({ clientCapabilities: APPS_HOST, owner: 'http-snapshot' })),
    ];
    const tools = [...new Map(both.map((t) => [t.name, t])).values()];
    const surface = tools
      .map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        annotations: t.annotations,
        inputSchema: t.inputSchema,
        outputSchema: t.outputSchema,
        // The one transport it is listed on (src/tool-visibility.ts); CI's clients count the snapshot by it.
        ...(ALL_TOOLS.find((s) => s.name === t.name)?.only
          ? { only: ALL_TOOLS.find((s) => s.name === t.name)?.only }
          : {}),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    await expect(`${JSON.stringify(surface, null, 2)}\n`).toMatchFileSnapshot('./__snapshots__/tools-list.json');
  });

  it('hides every billable tool in read-only mode, and the approvals toolset (it decides money)', async () => {
    const tools = await listWith({ config: { readOnly: true, approvalsFile: '/etc/genplat/approvals.json' } });
    const names = new Set(tools.map((t) => t.name));
    for (const spec of onStdio)
      expect(names.has(spec.name), spec.name).toBe(!spec.billable && spec.toolset !== 'approvals');
  });

  it('exposes only the chosen toolsets (plus jobs)', async () => {
    const tools = await listWith({ config: { toolsets: ['video', 'jobs'] }, clientCapabilities: APPS_HOST });
    const expected = onStdio.filter((t) => t.toolset === 'video' || t.toolset === 'jobs').map((t) => t.name);
    // A billable tool is visible, so the App's Confirm button is too (to this MCP Apps client).
    expect(tools.map((t) => t.name).sort()).toEqual([...expected, CONFIRM_TOOL].sort());
    expect(expected).toContain('create_talking_video');
    expect(expected).toContain('wait_for_jobs');
  });
});
