import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

const LIST = { method: 'GET', path: '/video/avatars' } as const;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

type Avatar = { id: string; name: string; gender?: string };

describe('list_avatars', () => {
  it('is read-only with a short description', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === 'list_avatars')!;
    expect(t.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(t.description!.length).toBeLessThan(300);
  });

  it('lists compact avatars, cached between calls', async () => {
    const s = structured(await h.call('list_avatars', {}));
    const avatars = s.avatars as Avatar[];
    expect(s.count).toBe(avatars.length);
    expect(avatars.map((a) => a.id)).toEqual(h.sim.data.avatars.map((a) => a.id));
    // Compact: no thumbnails (the resource has the full records) and no empty fields.
    for (const a of avatars) {
      expect(a).not.toHaveProperty('thumbnail');
      for (const v of Object.values(a)) expect(v).not.toBe('');
    }
    await h.call('list_avatars', {});
    expect(h.sim.log.count(LIST)).toBe(1);
  });

  it('filters by gender, case-insensitively', async () => {
    const s = structured(await h.call('list_avatars', { gender: 'female' }));
    const avatars = s.avatars as Avatar[];
    expect(avatars.length).toBeGreaterThan(0);
    expect(avatars.every((a) => a.gender?.toLowerCase() === 'female')).toBe(true);
    expect(avatars.length).toBeLessThan(h.sim.data.avatars.length);
  });

  it('rejects an empty gender without a request', async () => {
    const r = await h.call('list_avatars', { gender: '' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/gender/);
    expect(h.sim.log.entries()).toHaveLength(0);
  });
});
