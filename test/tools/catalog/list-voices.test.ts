import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

type Voice = { id: string; name: string; language?: string; gender?: string; is_custom?: boolean };

describe('list_voices', () => {
  it('says voice_id takes the id, not voiceId', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === 'list_voices')!;
    expect(t.description).toMatch(/id \(not its voiceId\)/);
    expect(t.description!.length).toBeLessThan(300);
    expect(t.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
  });

  it('lists stock and custom voices without voiceId', async () => {
    const voices = structured(await h.call('list_voices', {})).voices as Voice[];
    expect(voices.some((v) => v.is_custom === true)).toBe(true);
    for (const v of voices) expect(v).not.toHaveProperty('voiceId');
    const stock = h.sim.data.voices[0]!;
    expect(voices.find((v) => v.id === stock.id)).toMatchObject({ name: stock.name, language: stock.language });
  });

  it('filters by language and gender through the platform', async () => {
    const voices = structured(await h.call('list_voices', { language: 'english', gender: 'Female' })).voices as Voice[];
    expect(voices.length).toBeGreaterThan(0);
    expect(voices.every((v) => v.language === 'English' && v.gender === 'Female')).toBe(true);
    const sent = h.sim.log.entries().find((e) => e.path === '/video/voices');
    expect(sent?.query).toEqual({ language: 'english', gender: 'female' });
  });

  it('rejects an over-long language without a request', async () => {
    const r = await h.call('list_voices', { language: 'x'.repeat(65) });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/language/);
    expect(h.sim.log.entries()).toHaveLength(0);
  });
});
