/**
 * Who may speak for whom (issue 28 items 1-2), on a server with static tokens, OAuth (a real OpenID provider),
 * Slack identity auth and delegation all on: every refusal below is answered before any server is built, with
 * 0 requests to the identity provider and 0 to the platform. Slack: missing or wrong signature, a stale
 * timestamp, a body changed after signing, no person → 401; a workspace not allowed, a Slack request naming a
 * delegated person → 403. Delegation: a credential not marked delegating that names a person, or a delegating bot
 * naming an id of another namespace → 403. And what is accepted: an Enterprise Grid person, an OAuth bot's person.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { oidcOwner } from '../../src/auth/identity.js';
import { connectClient, FIRST_REQUESTS, rawRequest, sc } from '../http/helpers.js';
import { delegatingFetch, SLACK_SECRET, slackFetch, slackHeaders } from '../http/people-clients.js';
import { BOT_TOKEN, LEGACY_TOKEN, type OAuthFixture, startOAuthFixture } from './fixture.js';
import { BOT_CLIENT } from './idp.js';

let f: OAuthFixture;

beforeAll(async () => {
  f = await startOAuthFixture({
    env: {
      GENPLAT_SLACK_SIGNING_SECRETS: SLACK_SECRET,
      GENPLAT_SLACK_TEAMS: 'T1,E1',
      GENPLAT_HTTP_DELEGATING: `bot,client:${BOT_CLIENT.id}`,
    },
  });
});
afterAll(() => f.close());
/** How far the test moved the server's clock: each test starts a fresh failed-authentication window. */
let offset = 0;
beforeEach(() => {
  f.sim.log.clear();
  f.idp.requests.length = 0;
  f.advance(61_000);
  offset += 61_000;
});
/** Now on the server's clock, in seconds (what Slack's timestamp is compared with). */
const serverNow = () => Math.floor((Date.now() + offset) / 1000);

/** `body` (one era's first request) with `meta` added to its params._meta. */
function withMeta(body: string, meta: Record<string, unknown>): string {
  const m = JSON.parse(body) as { params: { _meta?: Record<string, unknown> } };
  m.params._meta = { ...m.params._meta, ...meta };
  return JSON.stringify(m);
}

const ADA = { slack: { user_id: 'U_ADA', team_id: 'T1', enterprise_id: null } };

describe.each(FIRST_REQUESTS)('$era first request', ({ body: first, headers: eraHeaders }) => {
  const post = (body: string, headers: Record<string, string>) =>
    rawRequest(f.url, { headers: { ...eraHeaders, ...headers }, body });

  it('a correctly signed Slack request of an allowed workspace is served (the control)', async () => {
    const body = withMeta(first, ADA);
    expect((await post(body, slackHeaders(body, SLACK_SECRET, serverNow()))).status).toBe(200);
    expect(f.idp.requests).toHaveLength(0);
  });

  it('Slack refusals: 401 and 403, before the identity provider or the platform hears anything', async () => {
    const body = withMeta(first, ADA);
    const signed = slackHeaders(body, SLACK_SECRET, serverNow());
    const now = serverNow();
    const cases: [string, string, Record<string, string>, number, RegExp][] = [
      ['no signature', body, { 'x-slack-request-timestamp': signed['x-slack-request-timestamp'] }, 401, /needs both/],
      ['no timestamp', body, { 'x-slack-signature': signed['x-slack-signature'] }, 401, /needs both/],
      ['another secret', body, slackHeaders(body, 'not-the-signing-secret-0123456789', now), 401, /does not match/],
      ['stale timestamp', body, slackHeaders(body, SLACK_SECRET, now - 301), 401, /more than 5 minutes/],
      // A minute past the window, not a second: the server's clock moves on while a loaded machine sends the request
      // (at +301 s a request served 1 s later is inside it; the exact edge is the unit test's, slack-signature).
      ['future timestamp', body, slackHeaders(body, SLACK_SECRET, now + 360), 401, /more than 5 minutes/],
      ['body changed after signing', body.replace('U_ADA', 'U_BOB'), signed, 401, /does not match/],
      ['no person', first, slackHeaders(first, SLACK_SECRET, now), 401, /must name its person/],
      ...(() => {
        const other = withMeta(first, { slack: { user_id: 'U_X', team_id: 'T9', enterprise_id: null } });
        const grid = withMeta(first, { slack: { user_id: 'W_X', team_id: 'T9', enterprise_id: 'E9' } });
        const both = withMeta(first, { ...ADA, 'io.genplat/on_behalf_of': { id: 'bob' } });
        return [
          [
            'workspace not allowed',
            other,
            slackHeaders(other, SLACK_SECRET, now),
            403,
            /T9 is not in GENPLAT_SLACK_TEAMS/,
          ],
          ['org not allowed', grid, slackHeaders(grid, SLACK_SECRET, now), 403, /org E9/],
          ['Slack request naming a delegated person', both, slackHeaders(both, SLACK_SECRET, now), 403, /cannot name/],
        ] as [string, string, Record<string, string>, number, RegExp][];
      })(),
    ];
    for (const [label, b, headers, status, message] of cases) {
      const r = await post(b, headers);
      expect(r.status, label).toBe(status);
      expect(r.body, label).toMatch(message);
      // A Slack request is judged by Slack's rules only: no Bearer challenge that would start an OAuth sign-in.
      expect(r.headers['www-authenticate'], label).toBeUndefined();
    }
    expect(f.idp.requests).toHaveLength(0);
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it('delegation refusals: 403 for a credential not marked delegating, or an id of another namespace', async () => {
    const name = (id: unknown) => withMeta(first, { 'io.genplat/on_behalf_of': { id } });
    const cases: [string, string, string, RegExp][] = [
      ['unmarked static token', LEGACY_TOKEN, name('alice'), /may not act for people/],
      ['a Slack id', BOT_TOKEN, name('slack:T1:U_ADA'), /of its own namespace only/],
      ["an OAuth person's id", BOT_TOKEN, name(oidcOwner(f.idp.issuer, 'someone')), /of its own namespace only/],
      ['another bot namespace', BOT_TOKEN, name('token:other:bob'), /of its own namespace only/],
      ['too long', BOT_TOKEN, name('a'.repeat(65)), /1-64/],
      ['not a string', BOT_TOKEN, name(42), /1-64/],
      ['not an object', BOT_TOKEN, withMeta(first, { 'io.genplat/on_behalf_of': 'alice' }), /must be an object/],
    ];
    for (const [label, token, b, message] of cases) {
      const r = await post(b, { authorization: `Bearer ${token}` });
      expect(r.status, label).toBe(403);
      expect(r.body, `${label}: ${r.body}`).toMatch(message);
    }
    expect(f.idp.requests).toHaveLength(0);
    expect(f.sim.log.entries()).toHaveLength(0);
  });
});

describe('the failed-authentication throttle', () => {
  it('counts bad Slack signatures (then 429), never signed requests that name nobody', async () => {
    const [{ body: first }] = FIRST_REQUESTS;
    for (let i = 0; i < 12; i++) {
      expect(
        (await rawRequest(f.url, { headers: slackHeaders(first, SLACK_SECRET, serverNow()), body: first })).status,
      ).toBe(401);
    }
    const body = withMeta(first, ADA);
    expect((await rawRequest(f.url, { headers: slackHeaders(body, SLACK_SECRET, serverNow()), body })).status).toBe(
      200,
    );
    const wrong = slackHeaders(body, 'not-the-signing-secret-0123456789', serverNow());
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await rawRequest(f.url, { headers: wrong, body })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
    expect(f.idp.requests).toHaveLength(0);
  });
});

describe('accepted people', () => {
  it('an Enterprise Grid person is slack:<enterprise>:<user>, allowed by the org id', async () => {
    const c = await connectClient(f.url, '', {
      fetch: slackFetch({ user_id: 'W_GRID', team_id: 'T7', enterprise_id: 'E1' }, SLACK_SECRET, serverNow),
    });
    try {
      expect((sc(await c.call('list_jobs')).spend as { you: { caller: string } }).you.caller).toBe('slack:E1:W_GRID');
    } finally {
      await c.close();
    }
  });

  it('an OAuth client marked delegating acts for a person inside its own namespace; unmarked, it is refused', async () => {
    const token = await f.idp.clientCredentialsToken(f.url, 'genplat:read genplat:spend');
    const c = await connectClient(f.url, token, { fetch: delegatingFetch({ id: 'alice' }) });
    try {
      const you = (sc(await c.call('list_jobs')).spend as { you: { caller: string } }).you.caller;
      expect(you).toBe(`${oidcOwner(f.idp.issuer, BOT_CLIENT.id)}:alice`);
    } finally {
      await c.close();
    }
  });
});
