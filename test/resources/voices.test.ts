import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

type Voice = { id: string; voiceId?: string; language?: string; gender?: string };
async function read(uri: string): Promise<Voice[]> {
  const r = await h.client.readResource({ uri });
  expect(r.contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
  return (JSON.parse((r.contents[0] as { text: string }).text) as { voices: Voice[] }).voices;
}

describe('genplat://voices', () => {
  it('the bare URI returns the full records', async () => {
    const voices = await read('genplat://voices');
    expect(voices.length).toBeGreaterThan(h.sim.data.voices.length - 1);
    expect(voices[0]!.voiceId).toBeTruthy();
  });

  it.each<[string, { language?: string; gender?: string }]>([
    ['genplat://voices?language=English&gender=Female', { language: 'english', gender: 'female' }],
    ['genplat://voices?gender=Male&language=English', { language: 'english', gender: 'male' }],
    ['genplat://voices?language=English', { language: 'english' }],
    ['genplat://voices?gender=Female', { gender: 'female' }],
  ])('%s filters through the platform (any subset, any order)', async (uri, query) => {
    const voices = await read(uri);
    expect(voices.length).toBeGreaterThan(0);
    if (query.language) expect(voices.every((v) => v.language === 'English')).toBe(true);
    if (query.gender) expect(voices.every((v) => v.gender?.toLowerCase() === query.gender)).toBe(true);
    expect(h.sim.log.entries().at(-1)?.query).toEqual(query);
  });

  it('completes language, and gender within the chosen language', async () => {
    const ref = { type: 'ref/resource' as const, uri: 'genplat://voices{?language,gender}' };
    const languages = (await h.client.complete({ ref, argument: { name: 'language', value: '' } })).completion.values;
    const expected = [...new Set(h.sim.data.voices.map((v) => v.language).filter(Boolean))].sort();
    expect(languages).toEqual(expected);
    const en = await h.client.complete({ ref, argument: { name: 'language', value: 'en' } });
    expect(en.completion.values).toEqual(expected.filter((l) => l.toLowerCase().startsWith('en')));
    const genders = await h.client.complete({
      ref,
      argument: { name: 'gender', value: '' },
      context: { arguments: { language: 'English' } },
    });
    expect(genders.completion.values.length).toBeGreaterThan(0);
    const englishGenders = new Set(h.sim.data.voices.filter((v) => v.language === 'English').map((v) => v.gender));
    expect(genders.completion.values.every((g) => englishGenders.has(g))).toBe(true);
  });
});
