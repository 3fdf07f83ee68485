/**
 * Uploads belong to the person, not the bot (issue 28 item 3): two Slack people of one Slack app, and two people
 * of one delegating bot, each on the real uploads fixture (store-served staging, a simulator that fetches the
 * bytes). A's `upload:<id>` is an unknown reference to B, refused before any request; A's own use of it runs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sc, text } from '../http/helpers.js';
import { delegatingFetch, SLACK_SECRET, slackFetch } from '../http/people-clients.js';
import { png } from './media-bytes.js';
import { requestLink, startUploadsFixture, type UploadsCallers, type UploadsFixture } from './uploads-fixture.js';

const BOT_TOKEN = 'chatbot-token-0123456789abcdef';
const ENV = {
  GENPLAT_HTTP_TOKEN: `chatbot=${BOT_TOKEN}`,
  GENPLAT_HTTP_DELEGATING: 'chatbot',
  GENPLAT_SLACK_SIGNING_SECRETS: SLACK_SECRET,
  GENPLAT_SLACK_TEAMS: 'T1',
};

const CASES: { label: string; callers: UploadsCallers }[] = [
  {
    label: 'two Slack people of one Slack app',
    callers: {
      a: { token: '', fetch: slackFetch({ team_id: 'T1', user_id: 'U_ADA' }) },
      b: { token: '', fetch: slackFetch({ team_id: 'T1', user_id: 'U_BOB' }) },
    },
  },
  {
    label: 'two people of one delegating bot',
    callers: {
      a: { token: BOT_TOKEN, fetch: delegatingFetch({ id: 'alice' }) },
      b: { token: BOT_TOKEN, fetch: delegatingFetch({ id: 'bob' }) },
    },
  },
];

let fx: UploadsFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe.each(CASES)('$label', ({ callers }) => {
  it("B naming A's upload is refused before any request; A's own use of it is sent", async () => {
    // Slack signatures use the wall clock; the fixture's clock is not moved here.
    fx = await startUploadsFixture(ENV, callers);
    const posts = () => fx!.sim.log.entries().filter((e) => e.method === 'POST').length;
    const l = await requestLink(fx.a, 'image');
    const put = await fetch(l.url, { method: 'PUT', body: png(), headers: { 'content-type': 'image/png' } });
    expect(put.status).toBe(200);
    const args = { category: 'beauty', format: 'before_after', image_url: l.reference, context: 'shelf' };
    const stolen = await fx.b.call('create_shoppable_image', args);
    expect(stolen.isError).toBe(true);
    expect(text(stolen)).toContain('unknown upload reference');
    expect(posts()).toBe(0);
    const mine = await fx.a.call('create_shoppable_image', args);
    expect(mine.isError, text(mine)).toBeFalsy();
    expect(sc(mine).handle).toBeTruthy();
    expect(posts()).toBe(1);
  });
});
