/**
 * Issue 30 item 6 over real HTTP (the real runtime, provider and simulator): a static token scoped `quote`
 * (GENPLAT_HTTP_TOKEN_SCOPES) and an OAuth token holding `genplat:quote` get a paid tool's quote and nothing more:
 * no confirmation token in the answer, a token the same OAuth subject got with `genplat:spend` is not accepted
 * from it, the App's Confirm and decide_approval refuse it with 403 insufficient_scope — and the simulator never
 * sees a POST. A `read` token is refused at the paid tool itself. Spend still works, on both kinds of credential.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CONFIRM_TOOL } from '../../src/apps/confirm-tool.js';
import { withToken } from './browser.js';
import { BOT_TOKEN, type OAuthFixture, startOAuthFixture } from './fixture.js';

const PLANNER = 'planner-token-0123456789abcdef';
const VIEWER = 'viewer-token-0123456789abcdef';
const LEAD = 'lead-token-0123456789abcdef';
const TOOL = 'create_talking_video';
const ARGS = { avatar_id: 'av_ava', voice_script: 'Quoted over HTTP.' };
/** The tool the approval policy holds (every call of it), so the other tests' calls are not held. */
const HELD = { tool: 'animate_gesture', args: { prompt: 'waves', image_url: 'https://cdn.example.com/p.png' } };

let f: OAuthFixture;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genplat-quote-scope-'));
  const policy = join(dir, 'approvals.json');
  await writeFile(
    policy,
    JSON.stringify({ rules: [{ when: { tools: [HELD.tool] }, approvers: ['token:planner', 'token:lead'] }] }),
  );
  f = await startOAuthFixture({
    env: {
      GENPLAT_HTTP_TOKEN: `bot=${BOT_TOKEN},planner=${PLANNER},viewer=${VIEWER},lead=${LEAD}`,
      GENPLAT_HTTP_TOKEN_SCOPES: 'planner=quote, viewer=read',
      GENPLAT_APPROVALS: policy,
    },
  });
});
afterAll(async () => {
  await f?.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => f.sim.log.clear());

type Envelope = { status: string; confirmation_token?: string; reason?: string; next_step: string; handle?: string };
const sc = (r: unknown) => (r as { structuredContent: Envelope }).structuredContent;
/** POSTs of TOOL: the held call the lead approves is sent in the background, on its own route. */
const posts = () => f.sim.log.count({ method: 'POST', path: '/video/generate' });
const heldPosts = () => f.sim.log.count({ method: 'POST', path: '/gestures/generate' });

function expectQuoteOnly(e: Envelope) {
  expect(e.status).toBe('confirmation_required');
  expect(e.confirmation_token).toBeUndefined();
  expect(e.reason).toMatch(/may quote but not spend \(scope genplat:quote\)/);
  expect(e.next_step).toMatch(/same request fingerprint [0-9a-f]{12}/);
}

describe('a static token scoped quote (GENPLAT_HTTP_TOKEN_SCOPES)', () => {
  it('gets a quote with no token, and its confirmation attempts send nothing', async () => {
    const c = await withToken(f.url, PLANNER);
    expectQuoteOnly(sc(await c.callTool({ name: TOOL, arguments: ARGS })));
    expectQuoteOnly(sc(await c.callTool({ name: TOOL, arguments: { ...ARGS, confirmation_token: 'x'.repeat(40) } })));
    await expect(
      c.callTool({
        name: CONFIRM_TOOL,
        arguments: { tool: TOOL, arguments: ARGS, confirmation_token: 'x'.repeat(40) },
      }),
    ).rejects.toThrow(/Insufficient scope/);
    expect(posts()).toBe(0);
    await c.close();
  });

  it('cannot decide an approval it is listed for; a spend-capable approver can', async () => {
    const bot = await withToken(f.url, BOT_TOKEN);
    const quote = sc(await bot.callTool({ name: HELD.tool, arguments: HELD.args }));
    const held = sc(
      await bot.callTool({
        name: HELD.tool,
        arguments: { ...HELD.args, confirmation_token: quote.confirmation_token },
      }),
    );
    expect(held.status).toBe('approval_required');
    const planner = await withToken(f.url, PLANNER);
    const decide = { name: 'decide_approval', arguments: { approval: held.handle, decision: 'approve' } };
    await expect(planner.callTool(decide)).rejects.toThrow(/Insufficient scope/);
    expect(heldPosts()).toBe(0);
    const lead = await withToken(f.url, LEAD);
    const r = await lead.callTool(decide);
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect((r.structuredContent as { state: string }).state).toBe('approved');
    await Promise.all([bot.close(), planner.close(), lead.close()]);
  });
});

describe('a static token scoped read', () => {
  it('is refused at the paid tool with insufficient_scope, and still reads', async () => {
    const c = await withToken(f.url, VIEWER);
    await expect(c.callTool({ name: TOOL, arguments: ARGS })).rejects.toThrow(
      /Insufficient scope: required "genplat:read genplat:quote genplat:spend"/,
    );
    expect((await c.callTool({ name: 'list_avatars', arguments: {} })).isError).toBeFalsy();
    expect(posts()).toBe(0);
    await c.close();
  });
});

describe('an OAuth token with genplat:quote', () => {
  it('gets a quote, cannot use the token its own subject got with genplat:spend, which then starts the job', async () => {
    const quoter = await withToken(f.url, await f.idp.clientCredentialsToken(f.url, 'genplat:quote'));
    const spender = await withToken(f.url, await f.idp.clientCredentialsToken(f.url, 'genplat:spend'));
    expectQuoteOnly(sc(await quoter.callTool({ name: TOOL, arguments: ARGS })));
    const token = sc(await spender.callTool({ name: TOOL, arguments: ARGS })).confirmation_token;
    expect(token).toBeDefined();
    expectQuoteOnly(sc(await quoter.callTool({ name: TOOL, arguments: { ...ARGS, confirmation_token: token } })));
    expect(posts()).toBe(0);
    const started = sc(await spender.callTool({ name: TOOL, arguments: { ...ARGS, confirmation_token: token } }));
    expect(started.status).toBe('submitted');
    expect(posts()).toBe(1);
    await Promise.all([quoter.close(), spender.close()]);
  });
});
