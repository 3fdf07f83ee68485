/**
 * Builds a View's single HTML document: `src/apps/views/<name>.html` with the ext-apps `App` class inlined.
 * No bundler: ext-apps ships a self-contained ESM build (`app-with-deps`, ~330 KB); its trailing `export{…}`
 * becomes `globalThis.McpApps = {…}`, so the View's own module script (which runs after it, module scripts run
 * in order) reads `App` and the theme helpers from there. A host gets one file that needs no network.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type ViewName = 'job-viewer' | 'picker' | 'board' | 'spend-report';

/** The names the Views use, mapped from the library's export clause. */
const WANTED = ['App', 'applyDocumentTheme', 'applyHostStyleVariables', 'applyHostFonts'];

/**
 * A View's source: beside this module (`dist/src/apps/views`, copied there by `npm run build`; or `src/apps/views`
 * when run from source), or under `apps/` when this code runs bundled into `dist/src/_bin-*.js`
 * (scripts/bundle-bin.mjs), else the checkout's `src/apps/views` (a dist built by tsc alone, as the tests do).
 */
function viewSource(name: ViewName): string {
  return viewFile(`${name}.html`);
}

/** A file of the views folder (a View, or a script Views share), found as `viewSource` describes. */
function viewFile(file: string): string {
  for (const rel of [`./views/${file}`, `./apps/views/${file}`]) {
    const here = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(here)) return readFileSync(here, 'utf8');
  }
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'src', 'apps', 'views', file);
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return readFileSync(candidate, 'utf8');
    dir = dirname(dir);
  }
  throw new Error(`genplat-mcp: view file ${file} not found (run npm run build)`);
}

/**
 * The library as a classic-free module script body.
 * @throws Error when the ext-apps build no longer ends in one export clause naming App (an upgrade changed it).
 */
export function inlineAppLibrary(source: string): string {
  const m = /export\s*\{([^}]*)\};?\s*$/.exec(source);
  if (!m) throw new Error('ext-apps app-with-deps: no trailing export clause');
  const names = new Map<string, string>();
  for (const part of m[1]!.split(',')) {
    const [local, exported] = part.trim().split(/\s+as\s+/);
    if (local) names.set(exported ?? local, local);
  }
  const missing = WANTED.filter((w) => !names.has(w));
  if (missing.length) throw new Error(`ext-apps app-with-deps: no export ${missing.join(', ')}`);
  const assign = WANTED.map((w) => `${w}:${names.get(w)}`).join(',');
  return `${source.slice(0, m.index)}globalThis.McpApps={${assign}};`;
}

const cache = new Map<ViewName, string>();

/** Marker → the views-folder script that replaces it. */
const SHARED_SCRIPTS: [string, string][] = [
  ['<!-- CONSENT_CARD -->', 'consent-card.js'],
  ['<!-- CAMPAIGN_BOARD -->', 'campaign-board.js'],
];

/** The View's HTML (built once per process: both parts are fixed files). */
export function viewHtml(name: ViewName): string {
  const hit = cache.get(name);
  if (hit) return hit;
  const require = createRequire(import.meta.url);
  const lib = readFileSync(require.resolve('@modelcontextprotocol/ext-apps/app-with-deps'), 'utf8');
  const page = viewSource(name);
  const marker = '<!-- MCP_APPS_LIBRARY -->';
  if (!page.includes(marker)) throw new Error(`view ${name}: missing ${marker}`);
  // A function replacement: the library contains `$&`-like sequences a string replacement would expand.
  const withLib = page.replace(marker, () => `<script type="module">${inlineAppLibrary(lib)}</script>`);
  // Scripts the job viewer and the board share (the consent card, the board itself): one file each, inlined where
  // a View asks for it, in the order of its markers (module scripts run in document order).
  let html = withLib;
  for (const [marker, file] of SHARED_SCRIPTS) {
    html = html.replace(marker, () => `<script type="module">${viewFile(file)}</script>`);
  }
  cache.set(name, html);
  return html;
}
