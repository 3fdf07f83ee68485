/**
 * App-only tools over stateless HTTP (src/protocol/app-only.ts): every request is served by a fresh instance
 * (src/server.ts `perRequest`), so what the client declared must be read from the request itself. A 2026-07-28
 * client declares it on every request's envelope; a 2025 client only at initialize, which a per-request
 * instance never sees, so it is treated as undeclared (fail closed: no click can be recorded from it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIRM_TOOL } from '../../src/apps/confirm-tool.js';
import { JOB_VIEWER_URI } from '../../src/apps/uris.js';
import { APPS_HOST } from '../helpers/harness.js';
import { type HttpFixture, sc, startHttpFixture, type TestClient, TOKEN_A, TOKEN_B, testEra, text } from './helpers.js';

let f: HttpFixture;
beforeAll(async () => {
  f = await startHttpFixture({ confirm: { mode: 'always' } });
});
afterAll(() => f?.close());

const ARGS = { avatar_id: 'av_ava', voice_script: 'Over HTTP, who clicked?' };
const posts = () => f.sim.log.entries().filter((e) => e.method === 'POST').length;

/** The click nonce in the job viewer as this server serves it to `c`'s caller (what the consent card sends). */
async function viewNonce(c: TestClient): Promise<string | undefined> {
  const view = (await c.client.readResource({ uri: JOB_VIEWER_URI })).contents[0] as { text: string };
  return /name="genplat-view-nonce" content="([^"]+)"/.exec(view.text)?.[1];
}

/** The consent kind the server recorded for a job (read from the state dir's SQLite store). */
async function consentOf(handle: string): Promise<string | undefined> {
  const store = await (await import('../../src/store/sqlite.js')).openSqliteStore(f.config.stateDir);
  try {
    return (await store.get(handle))?.consent;
  } finally {
    await store.close();
  }
}

describe('App-only tools over stateless HTTP', () => {
  it('a client without MCP Apps is not shown confirm_paid_call and is refused it by name, unsent', async () => {
    const c = await f.connect(TOKEN_A);
    expect((await c.client.listTools()).tools.map((t) => t.name)).not.toContain(CONFIRM_TOOL);
    const token = sc(await c.call('create_talking_video', ARGS)).confirmation_token;
    const click = await c.call(CONFIRM_TOOL, {
      tool: 'create_talking_video',
      arguments: ARGS,
      confirmation_token: token,
    });
    expect(click.isError).toBe(true);
    expect(text(click)).toMatch(/"confirm_paid_call": is the job viewer App's Confirm button/);
    expect(posts()).toBe(0);
    await c.close();
  });

  it('an MCP Apps client: 2026-07-28 is shown it and its click is recorded; 2025 (no session) is not', async () => {
    const c = await f.connect(TOKEN_A, { capabilities: APPS_HOST });
    const listed = (await c.client.listTools()).tools.map((t) => t.name).includes(CONFIRM_TOOL);
    expect(listed).toBe(testEra() === 'modern');
    const args = { ...ARGS, voice_script: 'A click over HTTP.' };
    const token = sc(await c.call('create_talking_video', args)).confirmation_token;
    const click = await c.call(CONFIRM_TOOL, {
      tool: 'create_talking_video',
      arguments: args,
      confirmation_token: token,
      view_nonce: await viewNonce(c),
    });
    expect(sc(click).status ?? 'refused').toBe(testEra() === 'modern' ? 'submitted' : 'refused');
    expect(posts()).toBe(testEra() === 'modern' ? 1 : 0);
    if (testEra() === 'modern') expect(await consentOf(sc(click).handle as string)).toBe('click');
    await c.close();
  });

  it("the View's nonce is bound to its caller: another caller's is not a click (issue 27 item 6)", async () => {
    if (testEra() !== 'modern') return; // 2025 over stateless HTTP is never shown the Confirm tool (above)
    const a = await f.connect(TOKEN_A, { capabilities: APPS_HOST });
    const b = await f.connect(TOKEN_B, { capabilities: APPS_HOST });
    const args = { ...ARGS, voice_script: "Someone else's View." };
    const token = sc(await a.call('create_talking_video', args)).confirmation_token;
    const r = await a.call(CONFIRM_TOOL, {
      tool: 'create_talking_video',
      arguments: args,
      confirmation_token: token,
      view_nonce: await viewNonce(b),
    });
    expect(sc(r).status).toBe('submitted');
    expect(await consentOf(sc(r).handle as string)).toBe('token');
    await a.close();
    await b.close();
  });
});
