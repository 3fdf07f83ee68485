/** The server side of the MCP Apps: links, UI resources and CSP, thumbnails, and consent by a human click. */
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BOARD_URI, JOB_VIEWER_URI, PICKER_URI, SPEND_REPORT_URI } from '../../src/apps/uris.js';
import { billablePosts } from '../helpers/examples.js';
import { APPS_HOST, type Harness, startHarness, structured, text } from '../helpers/harness.js';

const ARGS = { avatar_id: 'av_marcus', voice_script: 'A human said yes.' };

/** What the consent card sends with a click: the nonce in the View's HTML as this server served it to `h`'s client. */
async function viewNonce(h: Harness, uri = JOB_VIEWER_URI): Promise<string> {
  const c = (await h.client.readResource({ uri })).contents[0] as { text: string };
  const m = /<meta name="genplat-view-nonce" content="([^"]+)">/.exec(c.text);
  if (!m) throw new Error(`no view nonce in ${uri}`);
  return m[1]!;
}

describe('MCP Apps: links and resources', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: { mediaHosts: ['https://cdn.example.com'] }, clientCapabilities: APPS_HOST });
  });
  afterAll(() => h.close());

  it('links every creator, get_job and wait_for_jobs to the viewer; create_campaign to the board; the list tools to the picker', async () => {
    const { tools } = await h.client.listTools();
    const uri = (name: string) => (tools.find((t) => t.name === name)?._meta as { ui?: { resourceUri?: string } })?.ui;
    expect(uri('create_campaign')?.resourceUri).toBe(BOARD_URI);
    const creators = tools.filter((x) => x.name.startsWith('create_') || x.name === 'upscale_video');
    for (const t of creators.filter((x) => x.name !== 'create_campaign')) {
      expect(uri(t.name)?.resourceUri, t.name).toBe(JOB_VIEWER_URI);
      expect(t._meta?.['ui/resourceUri'], t.name).toBe(JOB_VIEWER_URI);
    }
    expect(uri('get_job')?.resourceUri).toBe(JOB_VIEWER_URI);
    expect(uri('wait_for_jobs')?.resourceUri).toBe(JOB_VIEWER_URI);
    expect(uri('list_avatars')?.resourceUri).toBe(PICKER_URI);
    expect(uri('list_voices')?.resourceUri).toBe(PICKER_URI);
    expect(uri('list_jobs')?.resourceUri).toBe(SPEND_REPORT_URI);
    expect(uri('confirm_paid_call')).toMatchObject({ resourceUri: JOB_VIEWER_URI, visibility: ['app'] });
  });

  it('serves each View as one HTML document with the App class inlined and a CSP computed at read time', async () => {
    for (const uri of [JOB_VIEWER_URI, PICKER_URI, BOARD_URI]) {
      const r = await h.client.readResource({ uri });
      const c = r.contents[0] as unknown as {
        mimeType: string;
        text: string;
        _meta: { ui: { csp: Record<string, string[]> } };
      };
      expect(c.mimeType).toBe(RESOURCE_MIME_TYPE);
      expect(c.text).toMatch(/^<!doctype html>/);
      expect(c.text).toContain('globalThis.McpApps={App:');
      expect(c.text).not.toMatch(/<script[^>]+src=/);
      expect(c._meta.ui.csp.resourceDomains).toEqual(['https://cdn.example.com', h.sim.origin]);
      expect(c._meta.ui.csp.connectDomains).toEqual([]);
    }
  });

  it('list_avatars and list_voices hand thumbnails and previews to the picker in _meta, not to the model', async () => {
    const a = await h.call('list_avatars', {});
    const media = a._meta?.['genplat/media'] as Record<string, { thumbnail: string }>;
    const first = (structured(a).avatars as { id: string }[])[0]!;
    expect(media[first.id]!.thumbnail).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/media\/.+\.png$/);
    expect(text(a)).not.toContain('thumbnail');
    const v = await h.call('list_voices', {});
    const vm = v._meta?.['genplat/media'] as Record<string, { preview: string }>;
    expect(Object.values(vm)[0]!.preview).toMatch(/\.mp3$/);
  });

  it('every output is a resource_link with its MIME type', async () => {
    h.sim.log.clear();
    const sub = structured(await h.call('create_talking_video', ARGS));
    let r = await h.call('get_job', { handle: sub.handle! });
    for (let i = 0; i < 100 && structured(r).status !== 'completed'; i++) {
      await new Promise((res) => setTimeout(res, 300));
      r = await h.call('get_job', { handle: sub.handle! });
    }
    const links = r.content.filter((c) => c.type === 'resource_link');
    expect(links[0]).toMatchObject({ mimeType: 'video/mp4' });
  });
});

describe('GENPLAT_CONSENT=human', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      config: { confirm: { mode: 'always' }, consent: 'human' },
      clientCapabilities: APPS_HOST,
    });
  });
  afterAll(() => h.close());
  beforeEach(() => h.sim.log.clear());

  it('refuses a token the model presents, with a next step, and sends nothing', async () => {
    const quote = await h.call('create_talking_video', ARGS);
    expect(structured(quote).status).toBe('confirmation_required');
    expect(quote._meta?.['genplat/confirm']).toMatchObject({
      tool: 'create_talking_video',
      arguments: ARGS,
      // The consent card the View shows (src/paid/consent-card.ts): every field sent.
      card: {
        fields: [
          { name: 'avatar_id', value: ARGS.avatar_id, long: false },
          { name: 'voice_script', value: ARGS.voice_script, long: false },
        ],
      },
    });
    const token = structured(quote).confirmation_token as string;
    const again = await h.call('create_talking_video', { ...ARGS, confirmation_token: token });
    expect(structured(again).status).toBe('confirmation_required');
    expect(structured(again).reason).toMatch(/GENPLAT_CONSENT=human/);
    expect(structured(again).next_step).toMatch(/clicking Confirm/);
    expect(billablePosts(h.sim)).toBe(0);
    // The refused token was not spent: the user's click can still redeem it.
    const click = await h.call('confirm_paid_call', {
      tool: 'create_talking_video',
      arguments: ARGS,
      confirmation_token: token,
      view_nonce: await viewNonce(h),
    });
    expect(structured(click).status, text(click)).toBe('submitted');
    expect(billablePosts(h.sim)).toBe(1);
  });

  it('a click redeems once; the ledger records consent "click"; a second click sends nothing', async () => {
    const args = { ...ARGS, voice_script: 'Click once.' };
    const token = structured(await h.call('create_talking_video', args)).confirmation_token as string;
    const first = await h.call('confirm_paid_call', {
      tool: 'create_talking_video',
      arguments: args,
      confirmation_token: token,
      view_nonce: await viewNonce(h),
    });
    expect(structured(first).status).toBe('submitted');
    const second = await h.call('confirm_paid_call', {
      tool: 'create_talking_video',
      arguments: args,
      confirmation_token: token,
      view_nonce: await viewNonce(h),
    });
    expect(structured(second).status).not.toBe('submitted');
    expect(billablePosts(h.sim)).toBe(1);
    const rec = (await h.jobs.list({})).find((j) => j.handle === structured(first).handle);
    expect(rec?.consent).toBe('click');
  });

  it("upscale_video's quote offers to save the original first", async () => {
    const { BILLABLE_EXAMPLES } = await import('../helpers/examples.js');
    const q = await h.call('upscale_video', BILLABLE_EXAMPLES.upscale_video!.args(h.sim));
    expect(structured(q).status, text(q)).toBe('confirmation_required');
    expect(structured(q).next_step).toMatch(/save the original first \(save_outputs/);
  });

  it('a click with changed arguments is refused unsent (the token binds the quoted request)', async () => {
    const quoted = { ...ARGS, voice_script: 'Quoted words.' };
    const token = structured(await h.call('create_talking_video', quoted)).confirmation_token as string;
    const r = await h.call('confirm_paid_call', {
      tool: 'create_talking_video',
      arguments: { ...quoted, voice_script: 'Something else.' },
      confirmation_token: token,
      view_nonce: await viewNonce(h),
    });
    expect(structured(r).status).toBe('confirmation_required');
    expect(billablePosts(h.sim)).toBe(0);
  });

  it('bad arguments in a click are a field-named error, unsent', async () => {
    const r = await h.call('confirm_paid_call', {
      tool: 'create_talking_video',
      arguments: { ...ARGS, bogus: 1 },
      confirmation_token: 'x',
      view_nonce: await viewNonce(h),
    });
    expect(r.isError).toBe(true);
    // Issue 27 item 6: the unknown key itself is named (it was `arguments.`, no key).
    expect(text(r)).toMatch(/Invalid argument "arguments\.bogus": Unrecognized key/);
    expect(h.sim.log.entries()).toHaveLength(0);
  });

  it("a client that declares Apps but calls confirm_paid_call without the View's nonce: refused by name, not a click, 0 POSTs (issue 27 item 6)", async () => {
    const token = structured(await h.call('create_talking_video', { ...ARGS, voice_script: 'No View.' }))
      .confirmation_token as string;
    const before = (await h.jobs.list({})).length;
    for (const view_nonce of [undefined, 'v1.1.forged.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      const r = await h.call('confirm_paid_call', {
        tool: 'create_talking_video',
        arguments: { ...ARGS, voice_script: 'No View.' },
        confirmation_token: token,
        ...(view_nonce ? { view_nonce } : {}),
      });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/Invalid argument "view_nonce": is (missing|not one this server gave its View)/);
      expect(text(r)).toMatch(/Nothing was sent or charged/);
    }
    expect(billablePosts(h.sim)).toBe(0);
    expect((await h.jobs.list({})).length).toBe(before);
    // The token was not spent: the person's click in the View still redeems it.
    const click = await h.call('confirm_paid_call', {
      tool: 'create_talking_video',
      arguments: { ...ARGS, voice_script: 'No View.' },
      confirmation_token: token,
      view_nonce: await viewNonce(h),
    });
    expect(structured(click).status, text(click)).toBe('submitted');
    expect(billablePosts(h.sim)).toBe(1);
  });

  it('the campaign board carries a nonce too; the picker (no card) none', async () => {
    expect(await viewNonce(h, BOARD_URI)).toMatch(/^v1\.\d+\./);
    const picker = (await h.client.readResource({ uri: PICKER_URI })).contents[0] as { text: string };
    expect(picker.text).not.toContain('genplat-view-nonce');
  });
});

describe('GENPLAT_CONSENT=human, a client that renders no Apps', () => {
  let h: Harness;
  beforeAll(async () => {
    // No `io.modelcontextprotocol/ui` capability: the host lists confirm_paid_call to its model like any tool.
    h = await startHarness({ config: { confirm: { mode: 'always' }, consent: 'human' } });
  });
  afterAll(() => h.close());

  it('cannot confirm through the App entrance: the model has no View to click in; nothing is sent', async () => {
    const quote = await h.call('create_talking_video', ARGS);
    const token = structured(quote).confirmation_token as string;
    const click = await h.call('confirm_paid_call', {
      tool: 'create_talking_video',
      arguments: ARGS,
      confirmation_token: token,
    });
    expect(click.isError).toBe(true);
    expect(text(click)).toMatch(/confirm_paid_call.*this client declared no MCP Apps support/);
    expect(billablePosts(h.sim)).toBe(0);
  });
});
