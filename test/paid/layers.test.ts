/**
 * The dependency rules of the paid path (issue 18 item 6), checked over the real import graph (every import,
 * type-only ones included, read by TypeScript's own pre-processor):
 * - the domain (paid path, store, jobs, platform client, signer) imports nothing of the MCP SDK;
 * - the domain imports nothing above it (tools, resources, the SDK runtime, protocol seams, transports, Apps);
 * - the store decides nothing: it imports nothing of the paid path (the rule comes in as an argument);
 * - one owner per admission rule: only src/paid/admission.ts compares a figure with a ceiling or builds a
 *   ceiling/duplicate/exclusive refusal.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
// The approval policy (src/approvals/*.ts) is domain; its page (src/approvals/page/) is a route, above it.
const APPROVAL_POLICY = ['decide', 'evaluate', 'load-policy', 'people-check', 'policy-schema', 'wording'].map(
  (f) => `src/approvals/${f}.ts`,
);
const DOMAIN = ['src/paid', ...APPROVAL_POLICY, 'src/store', 'src/jobs', 'src/client', 'src/signer.ts'];
const ABOVE = [
  'tools',
  'resources',
  'src/tool-runtime.ts',
  'src/server.ts',
  'src/server-shell.ts',
  'src/server-handlers.ts',
  'src/server-deferred.ts',
  'src/server-deps.ts',
  'src/campaign-watch.ts',
  'src/protocol',
  'src/transports',
  'src/apps',
  'src/index.ts',
];

function files(rel: string): string[] {
  const abs = join(ROOT, rel);
  if (statSync(abs).isFile()) return [rel];
  return readdirSync(abs).flatMap((n) => {
    const child = join(rel, n);
    if (statSync(join(ROOT, child)).isDirectory()) return files(child);
    return n.endsWith('.ts') ? [child] : [];
  });
}

/** Every module a file imports: package names as written, relative ones as repo paths (`.js` → `.ts`). */
function importsOf(rel: string): string[] {
  const info = ts.preProcessFile(readFileSync(join(ROOT, rel), 'utf8'), true, true);
  return info.importedFiles.map(({ fileName }) =>
    fileName.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(rel), fileName)).replace(/\.js$/, '.ts') : fileName,
  );
}

const under = (path: string, area: string) => path === area || path.startsWith(`${area}/`);
const domainFiles = DOMAIN.flatMap(files);

describe('paid-path layers', () => {
  it('the domain files exist where this check looks (a moved folder must move the check too)', () => {
    expect(domainFiles.filter((f) => f.startsWith('src/paid/')).length).toBeGreaterThan(3);
    expect(domainFiles).toContain('src/store/sqlite.ts');
  });

  it('the domain imports nothing of the MCP SDK', () => {
    const bad = domainFiles.flatMap((f) =>
      importsOf(f)
        .filter((m) => m.startsWith('@modelcontextprotocol/'))
        .map((m) => `${f} → ${m}`),
    );
    expect(bad).toEqual([]);
  });

  it('the domain imports nothing above it', () => {
    const bad = domainFiles.flatMap((f) =>
      importsOf(f)
        .filter((m) => ABOVE.some((a) => under(m, a.replace(/\.ts$/, '')) || m === a))
        .map((m) => `${f} → ${m}`),
    );
    expect(bad).toEqual([]);
  });

  it('the store imports nothing of the paid path: it reads facts, the rule is passed in', () => {
    const bad = files('src/store').flatMap((f) =>
      importsOf(f)
        .filter((m) => under(m, 'src/paid'))
        .map((m) => `${f} → ${m}`),
    );
    expect(bad).toEqual([]);
  });

  it('only src/paid/admission.ts compares with a ceiling or builds an admission refusal', () => {
    const compare = /[<>]=?\s*[\w.]*\.maxCreditsPer(Call|Day)\b|\.maxCreditsPer(Call|Day)\s*[<>]/;
    const refusal = /reason:\s*'(per_call|per_day|per_user_day|budget|duplicate|unsettled|exclusive)'\s*[,}]/;
    const owners = [...files('src'), ...files('tools'), ...files('resources')].filter((f) => {
      const text = readFileSync(join(ROOT, f), 'utf8');
      return compare.test(text) || refusal.test(text);
    });
    expect(owners).toEqual(['src/paid/admission.ts']);
  });
});
