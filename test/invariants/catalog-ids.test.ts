/**
 * Quote only what can run (issue 13, item 4): for every billable tool that takes an id the live catalog
 * defines (tools/_shared/catalog-ids.ts, CATALOG_ID_FIELDS), an unknown id is refused before any quote:
 * the error names the field and the list tool, no confirmation token is issued, nothing reaches the ledger
 * and the simulator sees no POST. A tool that gains such a field without a case here fails the coverage test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { Simulator } from '../../src/sim/index.js';
import { CATALOG_ID_FIELDS } from '../../tools/_shared/catalog-ids.js';
import { billableExample, billableTools } from '../helpers/examples.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

type Field = keyof typeof CATALOG_ID_FIELDS;

/** [tool, field, an id the sandbox catalog does not define]. */
const CASES: [string, Field, (sim: Simulator) => string][] = [
  ['create_talking_video', 'avatar_id', () => 'av_nope'],
  ['create_talking_video', 'voice_id', () => 'voice_nope'],
  ['create_product_video', 'voice_id', () => 'voice_nope'],
  ['create_template_video', 'template_id', () => '00000000-0000-4000-8000-00000000dead'],
  ['run_model', 'model', () => 'no-such-model-v9'],
  ['create_family_video', 'model', (sim) => `${sim.vendors.C}-9.9`],
  ['create_shoppable_image', 'category', () => 'toys'],
  ['create_shoppable_image', 'format', () => 'hologram'],
  ['create_shoppable_video', 'category', () => 'toys'],
  ['create_shoppable_video', 'format', () => 'hologram'],
];

/**
 * Fields with a catalog-id name that no list tool shows. upscale_video.model: upscale model names are not in a
 * list the platform publishes; its free quote (POST /upscale/quote, before any consent) checks them.
 */
const NOT_CATALOG = new Set(['upscale_video.model']);

/** The zod type under optional/default wrappers: `string` fields take ids, `enum` fields are closed already. */
function baseType(schema: z.ZodType): string {
  let def = (schema as unknown as { _zod: { def: { type: string; innerType?: z.ZodType } } })._zod.def;
  while (def.innerType && ['optional', 'default', 'nullable', 'prefault'].includes(def.type)) {
    def = (def.innerType as unknown as { _zod: { def: typeof def } })._zod.def;
  }
  return def.type;
}

let h: Harness;
beforeAll(async () => {
  // `always`: a call that got past validation would come back with a confirmation token.
  h = await startHarness({ config: { confirm: { mode: 'always' } } });
});
afterAll(() => h.close());

describe('unknown catalog ids are refused before any quote', () => {
  it('every billable tool field that takes a catalog id has a case here', () => {
    const covered = new Set(CASES.map(([tool, field]) => `${tool}.${field}`));
    const needed: string[] = [];
    for (const tool of billableTools()) {
      for (const [field, schema] of Object.entries(tool.input)) {
        const name = `${tool.name}.${field}`;
        if (field in CATALOG_ID_FIELDS && baseType(schema as z.ZodType) === 'string' && !NOT_CATALOG.has(name))
          needed.push(name);
      }
    }
    expect(needed.length).toBeGreaterThanOrEqual(CASES.length);
    expect(needed.filter((n) => !covered.has(n))).toEqual([]);
  });

  it.each(CASES.map(([tool, field, bad]) => [`${tool}.${field}`, tool, field, bad] as const))(
    '%s',
    async (_name, tool, field, bad) => {
      const id = bad(h.sim);
      const args = { ...billableExample(tool).args(h.sim, 7), [field]: id };
      h.sim.log.clear();
      const r = await h.call(tool, args);
      const message = text(r);
      expect(r.isError, message).toBe(true);
      // The runtime words it `Invalid argument "<field>": <rule>`.
      expect(message).toContain(`"${field}": unknown`);
      expect(message).toContain(`'${id}'`);
      expect(message).toContain(`call ${CATALOG_ID_FIELDS[field]}`);
      expect(structured(r).confirmation_token).toBeUndefined();
      expect(JSON.stringify(r)).not.toContain('confirmation_token');
      expect(h.sim.log.count({ method: 'POST' })).toBe(0);
      expect(await h.jobs.list({})).toEqual([]);
    },
  );

  it('the same calls with the known ids get a quote (the check is not refusing everything)', async () => {
    for (const tool of new Set(CASES.map(([t]) => t))) {
      const r = await h.call(tool, billableExample(tool).args(h.sim, 8));
      expect(r.isError, `${tool}: ${text(r)}`).toBeFalsy();
      expect(structured(r).status, tool).toBe('confirmation_required');
    }
    expect(h.sim.log.count({ method: 'POST' })).toBe(0);
  });
});

describe('the cached catalog', () => {
  it('re-reads a list once before refusing: a custom avatar newer than the cache is accepted', async () => {
    await h.call('list_avatars', {});
    const fd = new FormData();
    fd.append('image', 'https://cdn.example.com/me.png');
    const made = await fetch(`${h.sim.baseUrl}/custom-avatar/generate`, {
      method: 'POST',
      headers: { 'x-api-key': h.sim.apiKey },
      body: fd,
    });
    const avatarId = ((await made.json()) as { data: { avatar_id: string } }).data.avatar_id;
    h.sim.log.clear();
    const r = await h.call('create_talking_video', { avatar_id: avatarId, voice_script: 'Brand new me.' });
    expect(r.isError, text(r)).toBeFalsy();
    expect(structured(r).status).toBe('confirmation_required');
    expect(h.sim.log.count({ method: 'GET', path: '/video/avatars' })).toBe(1);
  });

  it('a voice given by its voiceId is told the right id', async () => {
    const voice = h.sim.data.voices.find((v) => v.voiceId !== v.id)!;
    const r = await h.call('create_talking_video', {
      avatar_id: 'av_marcus',
      voice_script: 'Wrong id.',
      voice_id: voice.voiceId,
    });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(`"voice_id": this is a voiceId; pass the voice's id "${voice.id}"`);
  });
});

describe('when the catalog cannot be read', () => {
  it('an avatar or voice check does not block the call: the platform still checks the id', async () => {
    const q = await startHarness({ config: { confirm: { mode: 'always' } } });
    try {
      // More failures than the client's GET retries, so the list stays unreadable for this call.
      q.sim.faults.add({ method: 'GET', path: '/video/avatars', kind: 'server_error', times: 20 });
      q.sim.faults.add({ method: 'GET', path: '/video/voices', kind: 'server_error', times: 20 });
      const r = await q.call('create_talking_video', {
        avatar_id: 'av_marcus',
        voice_id: q.sim.data.voices[0]!.id,
        voice_script: 'Catalog down.',
      });
      expect(r.isError, text(r)).toBeFalsy();
      expect(structured(r).status).toBe('confirmation_required');
      expect(q.logs.join('\n')).toMatch(/avatars list unavailable; avatar_id not checked locally/);
    } finally {
      await q.close();
    }
  });

  it('a model, whose price comes from the catalog, fails with the catalog error and sends nothing', async () => {
    const q = await startHarness({ config: { confirm: { mode: 'always' } } });
    try {
      q.sim.faults.add({ method: 'GET', path: '/enterprise/models', kind: 'server_error', times: 20 });
      const r = await q.call('run_model', billableExample('run_model').args(q.sim, 1));
      expect(r.isError).toBe(true);
      expect(text(r)).not.toContain('unknown model');
      expect(q.sim.log.count({ method: 'POST' })).toBe(0);
    } finally {
      await q.close();
    }
  });
});
