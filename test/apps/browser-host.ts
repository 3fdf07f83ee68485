/**
 * A small MCP Apps host for browser tests: a system Chromium (test/helpers/chromium.ts; playwright-core, never a
 * downloaded browser), a host page that embeds a View in a sandboxed iframe through the ext-apps `AppBridge`
 * (bundled for the browser with rolldown at test time), and the View's tool calls and resource reads forwarded to the
 * real server through the harness's SDK client. Like a real host it enforces the CSP the UI resource declares (a
 * `<meta>` CSP built from `_meta.ui.csp`), so a View that needs a host it did not declare fails here too.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { type Browser, chromium, type Page } from 'playwright-core';
import { build } from 'rolldown';
import { findChromium } from '../helpers/chromium.js';

const HOST_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>test host</title>
<style>body{margin:0;background:#eee} iframe{border:0;width:760px;height:900px;background:#fff}</style></head>
<body><iframe id="view" sandbox="allow-scripts"></iframe>
<script type="module">
import { AppBridge, PostMessageTransport } from '/bridge.js';
window.messages = []; window.contexts = []; window.downloads = []; window.toolCalls = []; window.resourceReads = [];
window.startView = async (html, csp, toolResult, theme) => {
  const iframe = document.getElementById('view');
  const bridge = new AppBridge(null, { name: 'genplat-test-host', version: '1.0.0' },
    { serverTools: {}, serverResources: {}, openLinks: {}, downloadFile: {}, updateModelContext: { text: {} }, message: { text: {} } },
    { hostContext: { theme, displayMode: 'inline' } });
  bridge.oncalltool = async (params) => { window.toolCalls.push(params.name); return JSON.parse(await window.mcpCall(JSON.stringify(params))); };
  bridge.onreadresource = async (params) => { window.resourceReads.push(params.uri); return JSON.parse(await window.mcpRead(JSON.stringify(params))); };
  bridge.onmessage = async (p) => { window.messages.push(p); return {}; };
  bridge.onupdatemodelcontext = async (p) => { window.contexts.push(p); return {}; };
  bridge.ondownloadfile = async (p) => { window.downloads.push(p); return {}; };
  bridge.onopenlink = async () => ({});
  const ready = new Promise((r) => { bridge.oninitialized = r; });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  const meta = '<meta http-equiv="Content-Security-Policy" content="' + csp + '">';
  iframe.srcdoc = html.replace('<head>', '<head>' + meta);
  await ready;
  await bridge.sendToolResult(toolResult);
};
</script></body></html>`;

/** The CSP a host derives from `_meta.ui.csp` (spec: resourceDomains → img/media/script/style/font). */
export function hostCsp(csp: { resourceDomains?: string[]; connectDomains?: string[] }): string {
  const res = (csp.resourceDomains ?? []).join(' ');
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${res}`,
    `style-src 'unsafe-inline' ${res}`,
    `img-src data: ${res}`,
    `media-src data: ${res}`,
    `font-src ${res}`,
    `connect-src ${(csp.connectDomains ?? []).join(' ') || "'none'"}`,
  ].join('; ');
}

export interface BrowserHost {
  page: Page;
  /** Loads `uri` from the server, embeds it and hands it `result` as the tool result. */
  show(uri: string, result: CallToolResult, theme?: 'light' | 'dark'): Promise<void>;
  close(): Promise<void>;
}

export async function startBrowserHost(client: Client): Promise<BrowserHost> {
  // First: with no browser the tests fail here, saying how to get one, before the host page is built.
  const executablePath = findChromium();
  const bridge = (
    await build({
      input: 'node_modules/@modelcontextprotocol/ext-apps/dist/src/app-bridge.js',
      write: false,
      output: { format: 'esm' },
      platform: 'browser',
      logLevel: 'silent',
    })
  ).output[0].code;
  const server: Server = createServer((req, res) => {
    if (req.url === '/bridge.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(bridge);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(HOST_PAGE);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser: Browser = await chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // Media must start without a user gesture in a headless test (a real user clicks play).
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
  const page = await browser.newPage({ viewport: { width: 780, height: 920 } });
  // A View's own errors, shown in the test output: a broken View otherwise only times out.
  page.on('pageerror', (err) => console.error(`[view] ${err.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') console.error(`[view console] ${m.text()}`);
  });
  await page.exposeFunction('mcpCall', async (json: string) => {
    const p = JSON.parse(json) as { name: string; arguments?: Record<string, unknown> };
    return JSON.stringify(await client.callTool({ name: p.name, arguments: p.arguments ?? {} }));
  });
  // A View's resources/read, proxied to the real server as a host does (the spend report reads its resource).
  await page.exposeFunction('mcpRead', async (json: string) => {
    const p = JSON.parse(json) as { uri: string };
    return JSON.stringify(await client.readResource({ uri: p.uri }));
  });
  await page.goto(`${origin}/host.html`);
  return {
    page,
    async show(uri, result, theme = 'light') {
      const read = await client.readResource({ uri });
      const c = read.contents[0] as { text: string; _meta?: { ui?: { csp?: Parameters<typeof hostCsp>[0] } } };
      await page.goto(`${origin}/host.html`);
      await page.evaluate(
        ([html, csp, r, t]) =>
          (globalThis as unknown as { startView: (...a: unknown[]) => Promise<void> }).startView(html, csp, r, t),
        [c.text, hostCsp(c._meta?.ui?.csp ?? {}), result, theme] as const,
      );
    },
    async close() {
      await browser.close();
      await new Promise((r) => server.close(r));
    },
  };
}
