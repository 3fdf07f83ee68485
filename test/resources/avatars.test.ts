import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

async function read(uri: string): Promise<{ avatars: { id: string; gender?: string; thumbnail?: string }[] }> {
  const r = await h.client.readResource({ uri });
  expect(r.contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
  return JSON.parse((r.contents[0] as { text: string }).text);
}

describe('genplat://avatars', () => {
  it('is listed as a resource and as a template', async () => {
    const { resources } = await h.client.listResources();
    expect(resources.find((r) => r.uri === 'genplat://avatars')).toMatchObject({ mimeType: 'application/json' });
    const { resourceTemplates } = await h.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('genplat://avatars{?gender}');
  });

  it('the bare URI returns full records (thumbnails included)', async () => {
    const { avatars } = await read('genplat://avatars');
    expect(avatars.map((a) => a.id)).toEqual(h.sim.data.avatars.map((a) => a.id));
    expect(avatars[0]!.thumbnail).toMatch(/^http/);
  });

  it('the templated URI filters by gender', async () => {
    const { avatars } = await read('genplat://avatars?gender=Male');
    expect(avatars.length).toBeGreaterThan(0);
    expect(avatars.every((a) => a.gender === 'Male')).toBe(true);
    expect(h.sim.log.entries().find((e) => e.path === '/video/avatars')?.query).toEqual({ gender: 'male' });
  });

  it('an unknown query parameter matches no resource', async () => {
    await expect(h.client.readResource({ uri: 'genplat://avatars?colour=red' })).rejects.toThrow(/not found/i);
  });

  it('completes gender from the live list', async () => {
    const r = await h.client.complete({
      ref: { type: 'ref/resource', uri: 'genplat://avatars{?gender}' },
      argument: { name: 'gender', value: 'f' },
    });
    expect(r.completion.values).toEqual(['Female']);
  });
});
