/**
 * Issue 29 item 8: tool text that routes the model. Every single creator that create_campaign can run names it
 * for variants; every media field (by its name: src/files/media-ref.ts decides which take local files) says it
 * takes a URL, a local path or an upload reference; each transport lists only the tools that work there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaKindOfField } from '../../src/files/media-ref.js';
import { MEDIA_REF_WORDS } from '../../tools/_shared/urls.js';
import { ALL_TOOLS } from '../../tools/index.js';
import { type Harness, startHarness } from '../helpers/harness.js';

type Tool = Awaited<ReturnType<Harness['client']['listTools']>>['tools'][number];
let stdio: Harness;
let http: Harness;
let stdioTools: Tool[];
let httpTools: Tool[];
beforeAll(async () => {
  const config = { approvalsFile: '/etc/genplat/approvals.json' };
  stdio = await startHarness({ config });
  http = await startHarness({ config, owner: 'http-routing' });
  stdioTools = (await stdio.client.listTools()).tools;
  httpTools = (await http.client.listTools()).tools;
});
afterAll(async () => {
  await stdio?.close();
  await http?.close();
});

/** Every string property's (key, description) in a JSON schema, arrays' items under their array's key. */
function stringFields(schema: unknown, key = ''): { key: string; description: string | undefined }[] {
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as { type?: string; description?: string; properties?: object; items?: unknown };
  const own = s.type === 'string' && key ? [{ key, description: s.description }] : [];
  const props = Object.entries(s.properties ?? {}).flatMap(([k, v]) => stringFields(v, k));
  return [...own, ...props, ...stringFields(s.items, key)];
}

describe('tool text that routes the model', () => {
  it('every creator create_campaign runs mentions create_campaign for variants', () => {
    const creators = ALL_TOOLS.filter(
      (t) =>
        t.billable && t.name !== 'create_campaign' && t.name !== 'create_custom_avatar' && t.name !== 'upscale_video',
    );
    expect(creators.map((t) => t.name)).toContain('create_talking_video');
    for (const t of creators) expect(t.description, t.name).toContain('Variants: create_campaign.');
  });

  it(`every media field says "${MEDIA_REF_WORDS}" (template fields stay URL-only)`, () => {
    const fields = [...stdioTools, ...httpTools]
      .filter((t) => t.name !== 'create_template_video')
      .flatMap((t) => stringFields(t.inputSchema).map((f) => ({ tool: t.name, ...f })))
      .filter(
        (f) => f.key !== 'webhook_url' && (mediaKindOfField(f.key) !== undefined || f.tool === 'create_custom_avatar'),
      )
      .filter((f) => f.tool !== 'create_custom_avatar' || f.key === 'image' || f.key === 'voice');
    expect(fields.length).toBeGreaterThanOrEqual(8);
    for (const f of fields) expect(f.description, `${f.tool}.${f.key}`).toContain(MEDIA_REF_WORDS);
  });

  it('lists a tool only on the transport it works on', () => {
    const names = (ts: Tool[]) => ts.map((t) => t.name);
    expect(names(stdioTools)).toContain('save_outputs');
    expect(names(stdioTools)).not.toContain('request_upload');
    expect(names(stdioTools)).not.toContain('decide_approval');
    expect(names(httpTools)).toContain('request_upload');
    expect(names(httpTools)).toContain('decide_approval');
    expect(names(httpTools)).not.toContain('save_outputs');
  });
});
