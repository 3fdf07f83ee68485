/**
 * Registers the four Views as `ui://` resources (MIME `text/html;profile=mcp-app`). The job viewer is linked from
 * every creator, get_job and wait_for_jobs; the picker from list_avatars and list_voices; the board from nothing yet (see AGENTS.md weak spots); the spend report from nothing: it reads its resource itself.
 */
import { RESOURCE_MIME_TYPE, registerAppResource } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';
import type { Config } from '../config.js';
import { viewCsp } from './csp.js';
import { type ViewName, viewHtml } from './html.js';
import { BOARD_URI, JOB_VIEWER_URI, PICKER_URI, SPEND_REPORT_URI } from './uris.js';
import { VIEW_NONCE_MARKER, withViewNonce } from './view-nonce.js';

const VIEWS: { name: ViewName; uri: string; title: string; description: string }[] = [
  {
    name: 'job-viewer',
    uri: JOB_VIEWER_URI,
    title: 'Job viewer',
    description: 'Shows jobs live (status, progress, quote, charge), plays outputs, takes a Confirm click.',
  },
  {
    name: 'picker',
    uri: PICKER_URI,
    title: 'Avatar and voice picker',
    description:
      'Avatars by thumbnail and voices by preview, with filters; choosing one tells the conversation. Over HTTP, an upload panel.',
  },
  {
    name: 'board',
    uri: BOARD_URI,
    title: 'Campaign board',
    description:
      "A campaign's variants in a grid (players, varied fields, cost, status), live, with filters and picks.",
  },
  {
    name: 'spend-report',
    uri: SPEND_REPORT_URI,
    title: 'Spend report',
    description:
      'Spend by person, team, tool, day, week or month from the audit (genplat://spend/report): a table and a bar chart.',
  },
];

/**
 * `uploadOrigin`: HTTP mode's upload-link origin (src/files/file-services.ts), the picker's upload panel's target.
 * `viewNonce`: a fresh click nonce for this caller (src/apps/view-nonce.ts), put in each read of a View that holds
 * the consent card.
 */
export function registerAppResources(
  server: McpServer,
  config: Pick<Config, 'mediaHosts'>,
  uploadOrigin?: () => string | undefined,
  viewNonce?: () => Promise<string>,
): void {
  const htmlFor = async (name: ViewName) => {
    const html = viewHtml(name);
    return viewNonce && html.includes(VIEW_NONCE_MARKER) ? withViewNonce(html, await viewNonce()) : html;
  };
  for (const v of VIEWS) {
    registerAppResource(
      server,
      v.title,
      v.uri,
      { description: v.description, mimeType: RESOURCE_MIME_TYPE },
      async () => ({
        contents: [
          {
            uri: v.uri,
            mimeType: RESOURCE_MIME_TYPE,
            text: await htmlFor(v.name),
            // Read time, not registration time: the sandbox's media origin exists only once it runs.
            _meta: { ui: { csp: viewCsp(config, uploadOrigin?.()), prefersBorder: true } },
          },
        ],
      }),
    );
  }
}
