/**
 * The registry meta-test (style.md 2.7): every tool file is registered and vice versa, names match files,
 * annotations are complete and consistent with billing, descriptions stay within budget, schemas carry no
 * root unions, every field is described, and every tool has a test file.
 */

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIRM_TOOL } from '../../src/apps/confirm-tool.js';
import { ALL_TOOLS } from '../../tools/index.js';
import { APPS_HOST, type Harness, startHarness } from '../helpers/harness.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const toolsDir = join(root, 'tools');

/** Tool files: everything under tools/ except the registry, shared helpers and per-model schema files. */
function toolFiles(dir = toolsDir): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name === '_shared' || name === 'models') continue;
      out.push(...toolFiles(path));
    } else if (name.endsWith('.ts') && path !== join(toolsDir, 'index.ts')) {
      out.push(path);
    }
  }
  return out;
}

let h: Harness;
let hHttp: Harness;
let listed: Awaited<ReturnType<Harness['client']['listTools']>>['tools'];

beforeAll(async () => {
  // An MCP Apps host: it is also shown the App-only Confirm button (src/protocol/app-only.ts).
  // With an approval policy, so the `approvals` toolset (decide_approval) is listed too (tool-visibility.ts).
  // Over stdio and over HTTP (a caller): each lists the tools that work there (tool-visibility.ts); together, all.
  const opts = { clientCapabilities: APPS_HOST, config: { approvalsFile: '/etc/genplat/approvals.json' } };
  h = await startHarness(opts);
  hHttp = await startHarness({ ...opts, owner: 'http-registry' });
  const both = [...(await h.client.listTools()).tools, ...(await hHttp.client.listTools()).tools];
  listed = [...new Map(both.map((t) => [t.name, t])).values()];
});
afterAll(async () => {
  await h?.close();
  await hHttp?.close();
});

describe('tool registry', () => {
  it('registers every tool file exactly once, and each file is named after its tool', async () => {
    const files = toolFiles();
    const byFile = new Map<string, string>();
    for (const file of files) {
      const mod = (await import(file)) as { default?: { name?: string } };
      expect(mod.default?.name, `${relative(root, file)} must default-export a tool spec`).toBeTypeOf('string');
      byFile.set(mod.default!.name!, file);
      expect(file.endsWith(`/${mod.default!.name!.replace(/_/g, '-')}.ts`), `${relative(root, file)} file name`).toBe(
        true,
      );
    }
    const registered = ALL_TOOLS.map((t) => t.name);
    expect(new Set(registered).size).toBe(registered.length);
    expect([...byFile.keys()].sort()).toEqual([...registered].sort());
  });

  it('keeps ALL_TOOLS sorted by name', () => {
    const names = ALL_TOOLS.map((t) => t.name);
    expect(names).toEqual([...names].sort());
  });

  it('lists every registered tool over MCP when all toolsets are on', () => {
    // Plus the App's Confirm button (app-only: hosts hide it from the model; src/apps/confirm-tool.ts).
    expect(listed.map((t) => t.name).sort()).toEqual([...ALL_TOOLS.map((t) => t.name), CONFIRM_TOOL].sort());
  });

  for (const spec of ALL_TOOLS) {
    describe(spec.name, () => {
      it('sets all four annotations, consistent with whether it bills', () => {
        const a = spec.annotations;
        for (const k of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
          expect(typeof a[k], `${spec.name}.${k}`).toBe('boolean');
        }
        if (spec.billable) {
          expect(a).toEqual({
            readOnlyHint: false,
            destructiveHint: false,
            idempotentHint: false,
            openWorldHint: true,
          });
        } else {
          // save_outputs writes files into the user's output folder, request_upload records a pending upload,
          // decide_approval records a decision: honest hints say they are not read-only.
          expect(a.readOnlyHint).toBe(!['save_outputs', 'request_upload', 'decide_approval'].includes(spec.name));
          expect(a.destructiveHint).toBe(false);
        }
      });

      it('has a short description and a title', () => {
        expect(spec.title.length).toBeGreaterThan(0);
        expect(spec.description.length).toBeLessThanOrEqual(400);
      });

      it('exposes an input schema without root unions, every field described, and an output schema', () => {
        const tool = listed.find((t) => t.name === spec.name)!;
        expect(tool).toBeDefined();
        const schema = tool.inputSchema as Record<string, unknown>;
        expect(schema.type).toBe('object');
        expect(schema).not.toHaveProperty('anyOf');
        expect(schema).not.toHaveProperty('oneOf');
        const props = (schema.properties ?? {}) as Record<string, { description?: string }>;
        for (const [field, p] of Object.entries(props)) {
          expect(p.description, `${spec.name}.${field} needs .describe()`).toBeTruthy();
        }
        expect(tool.outputSchema, `${spec.name} outputSchema`).toBeDefined();
        expect(tool.annotations).toMatchObject(spec.annotations);
      });

      if (spec.billable) {
        it('is guarded: accepts confirmation_token and allow_duplicate', () => {
          const props = (listed.find((t) => t.name === spec.name)!.inputSchema.properties ?? {}) as Record<
            string,
            unknown
          >;
          expect(props).toHaveProperty('confirmation_token');
          expect(props).toHaveProperty('allow_duplicate');
        });
      }

      it('has a test file', () => {
        const file = toolFiles().find((f) => f.endsWith(`/${spec.name.replace(/_/g, '-')}.ts`))!;
        const rel = relative(toolsDir, file).replace(/\.ts$/, '.test.ts');
        expect(existsSync(join(root, 'test', 'tools', rel)), `test/tools/${rel}`).toBe(true);
      });
    });
  }
});
