import { describe, expect, it, vi } from 'vitest';
import { createCatalog } from '../../src/catalog.js';
import { fakeClient, ok } from './jobs/fake-client.js';

const avatar = (id: string, gender: string) => ({ id, name: id, gender });

describe('createCatalog', () => {
  it('caches per filter (case-insensitive), coalesces concurrent fetches, expires after the TTL', async () => {
    let t = 0;
    const list = vi.fn(async (q?: { gender?: string }) =>
      ok(q?.gender ? [avatar('a2', 'Female')] : [avatar('a1', 'Male'), avatar('a2', 'Female')]),
    );
    const catalog = createCatalog(fakeClient({ avatars: { list } }), { ttlMs: 1_000, now: () => t });
    const [x, y] = await Promise.all([catalog.avatars(), catalog.avatars()]);
    expect(x).toBe(y);
    expect(list).toHaveBeenCalledTimes(1);
    await catalog.avatars({ gender: 'Female' });
    await catalog.avatars({ gender: ' female ' });
    expect(list).toHaveBeenCalledTimes(2);
    expect(list.mock.calls[1]![0]).toEqual({ gender: 'female' });
    t = 999;
    await catalog.avatars();
    expect(list).toHaveBeenCalledTimes(2);
    t = 1_000;
    await catalog.avatars();
    expect(list).toHaveBeenCalledTimes(3);
    catalog.invalidate();
    await catalog.avatars();
    expect(list).toHaveBeenCalledTimes(4);
  });

  it('does not cache failures', async () => {
    const list = vi.fn().mockRejectedValueOnce(new Error('boom')).mockResolvedValueOnce(ok([]));
    const catalog = createCatalog(fakeClient({ voices: { list } }));
    await expect(catalog.voices({ language: 'English' })).rejects.toThrow('boom');
    await expect(catalog.voices({ language: 'english' })).resolves.toEqual([]);
    expect(list).toHaveBeenLastCalledWith({ language: 'english' });
  });

  it('template(id) comes from the full list; "all" shares the unfiltered entry', async () => {
    const templates = vi.fn(async () =>
      ok([{ id: 't1', title: 'T', credit: '100', category: [], require_fields: {} }]),
    );
    const catalog = createCatalog(fakeClient({ library: { templates } }));
    expect((await catalog.template('t1'))?.title).toBe('T');
    expect(await catalog.template('nope')).toBeUndefined();
    await catalog.templates('all');
    expect(templates).toHaveBeenCalledTimes(1);
    expect(templates).toHaveBeenCalledWith(undefined);
  });
});
