/**
 * Issue 14 item 2: `genplat:read` lists, reads and waits; `genplat:spend` (which implies read) starts paid jobs.
 * A read-only token is refused on EVERY billable tool — and on the App's confirm entrance — by the SDK's scope
 * challenge (403 insufficient_scope) before any work: nothing at all reaches the platform. It can still read.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CONFIRM_TOOL } from '../../src/apps/confirm-tool.js';
import { billableExample, billableTools, READ_EXAMPLES } from '../helpers/examples.js';
import { withToken } from './browser.js';
import { type OAuthFixture, startOAuthFixture } from './fixture.js';

let f: OAuthFixture;
beforeAll(async () => {
  f = await startOAuthFixture();
});
afterAll(() => f?.close());
beforeEach(() => f.sim.log.clear());

/** Every paid entrance: each billable tool of the registry, and the App's Confirm button. */
function paidCalls(): [string, Record<string, unknown>][] {
  const calls: [string, Record<string, unknown>][] = billableTools().map((t) => [
    t.name,
    billableExample(t.name).args(f.sim),
  ]);
  calls.push([
    CONFIRM_TOOL,
    {
      tool: 'create_talking_video',
      arguments: { avatar_id: 'av_ava', voice_script: 'Confirmed by a read-only caller.' },
      confirmation_token: 'x'.repeat(40),
    },
  ]);
  return calls;
}

describe('a read-only token', () => {
  it('is refused on every paid entrance with 403 insufficient_scope, and nothing reaches the platform', async () => {
    const token = await f.idp.clientCredentialsToken(f.url, 'genplat:read');
    const c = await withToken(f.url, token);
    const calls = paidCalls();
    expect(calls.length).toBeGreaterThan(10);
    for (const [name, args] of calls) {
      await expect(c.callTool({ name, arguments: args }), name).rejects.toThrow(
        /Insufficient scope: required "genplat:read genplat:quote genplat:spend"/,
      );
    }
    // Not even the free GETs a paid call makes first (catalog look-ups, the upscale quote).
    expect(f.sim.log.entries()).toHaveLength(0);
    await c.close();
  });

  it('answers the raw request with the challenge naming every scope', async () => {
    const token = await f.idp.clientCredentialsToken(f.url, 'genplat:read');
    const c = await withToken(f.url, token);
    await c.close();
    const res = await fetch(f.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Raw.' } },
      }),
    });
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="genplat:read genplat:quote genplat:spend"');
    expect(challenge).toContain('resource_metadata=');
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it('still calls every read tool', async () => {
    const c = await withToken(f.url, await f.idp.clientCredentialsToken(f.url, 'genplat:read'));
    for (const name of [
      'list_avatars',
      'list_voices',
      'list_templates',
      'list_models',
      'list_jobs',
      'wait_for_jobs',
      'get_job',
      'quote_upscale',
    ]) {
      const r = await c.callTool({ name, arguments: READ_EXAMPLES[name]!.args(f.sim) });
      // A tool error about the platform (an unknown job) is fine; a transport/scope refusal would have thrown.
      expect(r.content, name).toBeDefined();
    }
    expect((await c.callTool({ name: 'list_avatars', arguments: {} })).isError).toBeFalsy();
    expect((await c.listResources()).resources.length).toBeGreaterThan(0);
    await c.close();
  });
});

describe('a spend-only token (spend implies read)', () => {
  it('reads and gets a quote', async () => {
    const c = await withToken(f.url, await f.idp.clientCredentialsToken(f.url, 'genplat:spend'));
    expect((await c.callTool({ name: 'list_avatars', arguments: {} })).isError).toBeFalsy();
    const quote = await c.callTool({
      name: 'create_talking_video',
      arguments: { avatar_id: 'av_ava', voice_script: 'Spend-only caller.' },
    });
    expect((quote.structuredContent as { status: string }).status).toBe('confirmation_required');
    await c.close();
  });
});
