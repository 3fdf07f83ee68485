/**
 * Issue 29 item 3: the MCP App Views (which Slack renders for Slackbot) work with Slack identity, over the real HTTP
 * fixture in both eras. A Slack-signed client (the person in `params._meta.slack`, the body signed with the app's
 * signing secret: test/http/people-clients.ts) that declares MCP Apps and Block Kit reads the job viewer View, is
 * told which View renders the paid tools (`_meta.ui.resourceUri`; 2026: and which answer in blocks), and the View's calls (confirm_paid_call with its
 * nonce, get_job on the job) work for that Slack person and not for another Slack person of the same app.
 */
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIRM_TOOL } from '../../src/apps/confirm-tool.js';
import { JOB_VIEWER_URI } from '../../src/apps/uris.js';
import { APPS_HOST } from '../helpers/harness.js';
import { blockProblems } from '../slack/block-validator.js';
import { type HttpFixture, sc, startHttpFixture, type TestClient, testEra, text } from './helpers.js';
import { SLACK_SECRET, slackFetch } from './people-clients.js';

/** What Slackbot declares: MCP Apps (it renders Views) and Block Kit. */
const SLACKBOT: ClientCapabilities = {
  extensions: {
    ...(APPS_HOST.extensions as object),
    'io.slack/block-kit': { mimeTypes: ['application/vnd.slack.blocks+json'] },
  },
} as ClientCapabilities;
const ARGS = { avatar_id: 'av_ava', voice_script: 'Made in a Slack thread.' };

let f: HttpFixture;
let ada: TestClient;
let bob: TestClient;
beforeAll(async () => {
  f = await startHttpFixture({
    confirm: { mode: 'always' },
    env: { GENPLAT_SLACK_SIGNING_SECRETS: SLACK_SECRET, GENPLAT_SLACK_TEAMS: 'T1' },
  });
  ada = await f.connect('', { fetch: slackFetch({ team_id: 'T1', user_id: 'U_ADA' }), capabilities: SLACKBOT });
  bob = await f.connect('', { fetch: slackFetch({ team_id: 'T1', user_id: 'U_BOB' }), capabilities: SLACKBOT });
});
afterAll(async () => {
  await ada?.close();
  await bob?.close();
  await f?.close();
});

const posts = () => f.sim.log.entries().filter((e) => e.method === 'POST').length;

/** The job viewer as this server serves it to `c`'s Slack person, and its caller-bound click nonce. */
async function view(c: TestClient): Promise<{ html: string; nonce: string | undefined }> {
  const content = (await c.client.readResource({ uri: JOB_VIEWER_URI })).contents[0] as { text: string };
  return { html: content.text, nonce: /name="genplat-view-nonce" content="([^"]+)"/.exec(content.text)?.[1] };
}

describe('MCP App Views under Slack identity', () => {
  it('a Slack person reads the View, and the paid tools name it as their renderer', async () => {
    const { html, nonce } = await view(ada);
    expect(html).toContain('<html');
    expect(nonce).toBeDefined();
    // Each person's View carries their own nonce (bound to the Slack person, src/apps/view-nonce.ts).
    expect((await view(bob)).nonce).not.toBe(nonce);
    const tool = (await ada.client.listTools()).tools.find((t) => t.name === 'create_talking_video');
    expect((tool?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri).toBe(JOB_VIEWER_URI);
    // Block Kit is read like MCP Apps: per request on 2026; a 2025 client over stateless HTTP declared it only at
    // initialize, which a per-request instance never sees (docs/chat-bots.md "Slack-native answers").
    const marked = (tool?._meta?.slack as { supportsBlockKit?: boolean } | undefined)?.supportsBlockKit;
    expect(marked).toBe(testEra() === 'modern' ? true : undefined);
  });

  it("the View's Confirm and get_job work for the Slack person, not for another Slack person", async () => {
    const quote = await ada.call('create_talking_video', ARGS);
    const token = sc(quote).confirmation_token as string;
    if (testEra() === 'modern')
      expect(blockProblems((quote._meta?.slack as { blocks?: unknown } | undefined)?.blocks)).toEqual([]);
    else expect(quote._meta?.slack).toBeUndefined();

    // Bob's View (his own nonce) cannot confirm Ada's quote: the token is bound to Ada.
    const stolen = await bob.call(CONFIRM_TOOL, {
      tool: 'create_talking_video',
      arguments: ARGS,
      confirmation_token: token,
      view_nonce: (await view(bob)).nonce,
    });
    expect(sc(stolen).status).not.toBe('submitted');
    expect(posts()).toBe(0);

    let handle: string;
    if (testEra() === 'modern') {
      // Ada's click in her View (her nonce): sent once, recorded as her click.
      const click = await ada.call(CONFIRM_TOOL, {
        tool: 'create_talking_video',
        arguments: ARGS,
        confirmation_token: token,
        view_nonce: (await view(ada)).nonce,
      });
      expect(sc(click).status).toBe('submitted');
      handle = sc(click).handle as string;
      const store = await (await import('../../src/store/sqlite.js')).openSqliteStore(f.config.stateDir);
      try {
        expect(await store.get(handle)).toMatchObject({ owner: 'slack:T1:U_ADA', consent: 'click' });
      } finally {
        await store.close();
      }
    } else {
      // 2025 over stateless HTTP is never shown the Confirm tool (test/http/app-only.test.ts): the token flow.
      expect(stolen.isError).toBe(true);
      handle = sc(await ada.call('create_talking_video', { ...ARGS, confirmation_token: token })).handle as string;
    }
    expect(posts()).toBe(1);

    // The View follows the job with get_job: Ada's, in blocks too; Bob is told there is no such job.
    const mine = await ada.call('get_job', { handle });
    expect(sc(mine).handle).toBe(handle);
    if (testEra() === 'modern')
      expect(blockProblems((mine._meta?.slack as { blocks?: unknown } | undefined)?.blocks)).toEqual([]);
    const theirs = await bob.call('get_job', { handle });
    expect(theirs.isError).toBe(true);
    expect(text(theirs)).toMatch(/no such job for this caller/);
  });
});
