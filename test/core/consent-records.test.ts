/**
 * Design.md §1 invariant 1, last sentence: the consent record is true to what happened. Each carrier, through a
 * real client, leaves exactly its own kind in the audit trail (`Store.auditEvents`, the `audit export` fold) and
 * in list_jobs: policy, token, the form (2025: pushed `elicitation/create`; 2026: `input_required`) and a click,
 * which only a client that declared MCP Apps can make. A Confirm "click" from any other client records and sends
 * nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIRM_TOOL } from '../../src/apps/confirm-tool.js';
import { JOB_VIEWER_URI } from '../../src/apps/uris.js';
import { foldAudit } from '../../src/audit/export.js';
import { APPS_HOST, type Harness, type HarnessOptions, startHarness, structured, text } from '../helpers/harness.js';

const TOOL = 'create_talking_video';
const ARGS = { avatar_id: 'av_ava', voice_script: 'Whose consent is this?', voice_id: 'voice_en_rachel' };
const POSTS = { method: 'POST', path: '/video/generate' } as const;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(opts: HarnessOptions = {}): Promise<Harness> {
  h = await startHarness({ ...opts, config: { confirm: { mode: 'always' }, ...opts.config } });
  return h;
}

/** The consent kinds on record, by every reader: audit rows, the export's fold, list_jobs. */
async function recorded(): Promise<{ audit: unknown[]; exported: unknown[]; listed: unknown[] }> {
  const events = await h!.jobs.auditEvents();
  const listed = structured(await h!.call('list_jobs', {})).jobs as { consent?: string }[];
  return {
    audit: events.filter((e) => e.event === 'admit').map((e) => e.consent),
    exported: foldAudit(events).map((r) => r.consent),
    listed: listed.map((j) => j.consent),
  };
}
const only = (kind: string) => ({ audit: [kind], exported: [kind], listed: [kind] });

describe('the consent record says what happened', () => {
  it('policy never: "policy"', async () => {
    await start({ config: { confirm: { mode: 'never' } } });
    expect(structured(await h!.call(TOOL, ARGS)).status).toBe('submitted');
    expect(await recorded()).toEqual(only('policy'));
  });

  it('policy above:N at or below N: "policy"', async () => {
    await start({ config: { confirm: { mode: 'above', credits: 100 } } });
    expect(structured(await h!.call(TOOL, ARGS)).status).toBe('submitted');
    expect(await recorded()).toEqual(only('policy'));
  });

  it('a token quoted back by the model: "token"', async () => {
    await start();
    const token = structured(await h!.call(TOOL, ARGS)).confirmation_token;
    expect(structured(await h!.call(TOOL, { ...ARGS, confirmation_token: token })).status).toBe('submitted');
    expect(await recorded()).toEqual(only('token'));
  });

  it('an accepted form (2025 pushed elicitation, 2026 input_required): "elicitation"', async () => {
    await start({ onElicit: async () => ({ action: 'accept', content: { confirm: true } }) });
    expect(structured(await h!.call(TOOL, ARGS)).status).toBe('submitted');
    expect(await recorded()).toEqual(only('elicitation'));
  });

  it('a Confirm click from the View this server served (its nonce), in a client that declared MCP Apps: "click"', async () => {
    await start({ clientCapabilities: APPS_HOST });
    expect((await h!.client.listTools()).tools.map((t) => t.name)).toContain(CONFIRM_TOOL);
    const token = structured(await h!.call(TOOL, ARGS)).confirmation_token;
    const view = (await h!.client.readResource({ uri: JOB_VIEWER_URI })).contents[0] as { text: string };
    const view_nonce = /name="genplat-view-nonce" content="([^"]+)"/.exec(view.text)?.[1];
    const click = await h!.call(CONFIRM_TOOL, { tool: TOOL, arguments: ARGS, confirmation_token: token, view_nonce });
    expect(structured(click).status, text(click)).toBe('submitted');
    expect(h!.sim.log.count(POSTS)).toBe(1);
    expect(await recorded()).toEqual(only('click'));
  });

  it('the same call without the View\'s nonce (a capability claim only) is the token\'s redemption: "token", not "click" (issue 27 item 6)', async () => {
    await start({ clientCapabilities: APPS_HOST });
    const token = structured(await h!.call(TOOL, ARGS)).confirmation_token;
    const call = await h!.call(CONFIRM_TOOL, { tool: TOOL, arguments: ARGS, confirmation_token: token });
    expect(structured(call).status, text(call)).toBe('submitted');
    expect(h!.sim.log.count(POSTS)).toBe(1);
    expect(await recorded()).toEqual(only('token'));
  });

  it('a 2025-era client cannot claim MCP Apps in a request _meta envelope (issue 18 review): refused, nothing recorded', async () => {
    await start({ config: { consent: 'human' } });
    if (h!.era !== 'legacy') return; // on the 2026 era the envelope IS how a client declares capabilities
    const token = structured(await h!.call(TOOL, ARGS)).confirmation_token;
    const click = await h!.client.callTool({
      name: CONFIRM_TOOL,
      arguments: { tool: TOOL, arguments: ARGS, confirmation_token: token },
      _meta: { 'io.modelcontextprotocol/clientCapabilities': APPS_HOST },
    });
    expect(click.isError).toBe(true);
    expect(h!.sim.log.count(POSTS)).toBe(0);
    expect(await h!.jobs.auditEvents()).toEqual([]);
  });

  for (const consent of ['any', 'human'] as const) {
    it(`a client without MCP Apps is not shown the Confirm tool and is refused it by name (GENPLAT_CONSENT=${consent}): nothing recorded or sent`, async () => {
      await start({ config: { consent } });
      expect((await h!.client.listTools()).tools.map((t) => t.name)).not.toContain(CONFIRM_TOOL);
      const token = structured(await h!.call(TOOL, ARGS)).confirmation_token;
      const click = await h!.call(CONFIRM_TOOL, { tool: TOOL, arguments: ARGS, confirmation_token: token });
      expect(click.isError).toBe(true);
      expect(text(click)).toMatch(
        /"confirm_paid_call": is the job viewer App's Confirm button, and this client declared no MCP Apps support/,
      );
      expect(h!.sim.log.count(POSTS)).toBe(0);
      expect(await h!.jobs.auditEvents()).toEqual([]);
      expect(await h!.jobs.list({})).toEqual([]);
    });
  }
});
