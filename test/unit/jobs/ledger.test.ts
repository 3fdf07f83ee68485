import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { estimate } from '../../../src/jobs/envelope.js';
import { encodeHandle } from '../../../src/jobs/handle.js';
import { decodeLine, encodeEvent } from '../../../src/jobs/ledger-codec.js';
import { newRecord, type TestDir, testDir } from './ledger-helpers.js';

let t: TestDir;
beforeEach(async () => {
  t = await testDir();
});
afterEach(async () => {
  await t.cleanup();
});

const ledgerFile = () => join(t.dir, 'ledger.jsonl');

describe('intent and update', () => {
  it('records an intent with ledger defaults', async () => {
    const store = await t.open();
    const rec = await store.recordIntent(newRecord());
    expect(rec).toMatchObject({
      handle: `submission:${rec.id}`,
      tool: 'create_talking_video',
      kind: 'actor_video',
      outcome: 'pending',
      status: 'submitted',
      outputs: [],
      requestId: undefined,
      creditsCharged: undefined,
      owner: undefined,
    });
    expect(rec.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(rec.createdAt).toBe(rec.updatedAt);
    expect(await store.get(rec.id)).toEqual(rec);
  });

  it('merges updates, ignores immutable fields, and can clear a field', async () => {
    const store = await t.open();
    const rec = await store.recordIntent(newRecord());
    const handle = encodeHandle({ kind: 'actor_video', id: 'v-1' });
    const a = await store.update(rec.id, {
      outcome: 'submitted',
      status: 'processing',
      handle,
      requestId: 'req-1',
      remote: { id: 'v-1' },
      reason: 'slow queue',
    });
    expect(a).toMatchObject({
      outcome: 'submitted',
      status: 'processing',
      handle,
      requestId: 'req-1',
      reason: 'slow queue',
    });
    // JobPatch forbids these at type level; a caller bypassing types still cannot change them.
    const sneaky = { fingerprint: 'other', tool: 'x', owner: 'mallory', createdAt: '2000-01-01T00:00:00.000Z' };
    const b = await store.update(rec.id, {
      status: 'completed',
      reason: undefined,
      outputs: [{ url: 'https://cdn.example.com/v.mp4', media: 'video' }],
      creditsCharged: 100,
      ...sneaky,
    } as never);
    expect(b).toMatchObject({ status: 'completed', creditsCharged: 100, fingerprint: 'fp-1', tool: rec.tool });
    expect(b.owner).toBeUndefined();
    expect(b.createdAt).toBe(rec.createdAt);
    expect(b.reason).toBeUndefined();
    expect(b.requestId).toBe('req-1');
    expect(b.outputs).toEqual([{ url: 'https://cdn.example.com/v.mp4', media: 'video' }]);
  });

  it('throws when updating an unknown id', async () => {
    const store = await t.open();
    await expect(store.update('nope', { status: 'failed' })).rejects.toThrow(/no record nope/);
  });

  it('hands out copies: mutating a result does not change the ledger', async () => {
    const store = await t.open();
    const rec = await store.recordIntent(newRecord());
    rec.summary = 'changed';
    rec.outputs.push({ url: 'https://x.example.com/a', media: 'image' });
    const again = await store.get(rec.id);
    expect(again?.summary).toBe('talking video, avatar a1');
    expect(again?.outputs).toEqual([]);
  });

  it('rejects every operation after close', async () => {
    const store = await t.open();
    await store.close();
    await expect(store.list()).rejects.toThrow(/closed/);
    await expect(store.recordIntent(newRecord())).rejects.toThrow(/closed/);
    await store.close(); // idempotent
  });
});

describe('get and list', () => {
  it('finds a record by handle (latest), and by its submission handle after the handle changed', async () => {
    let clock = Date.parse('2025-03-01T10:00:00.000Z');
    const store = await t.open({ now: () => new Date(clock) });
    const handle = 'actor_video:same';
    const older = await store.recordIntent(newRecord({ handle }));
    clock += 1000;
    const newer = await store.recordIntent(newRecord({ handle }));
    expect((await store.get(handle))?.id).toBe(newer.id);
    expect((await store.get(older.id))?.id).toBe(older.id);

    const sub = await store.recordIntent(newRecord());
    await store.update(sub.id, { handle: 'actor_video:late' });
    expect((await store.get(`submission:${sub.id}`))?.handle).toBe('actor_video:late');
    expect((await store.get('actor_video:late'))?.id).toBe(sub.id);
    expect(await store.get('actor_video:missing')).toBeUndefined();
  });

  it('lists newest first with owner, since, status and limit filters', async () => {
    let clock = Date.parse('2025-03-01T10:00:00.000Z');
    const store = await t.open({ now: () => new Date(clock) });
    const ids: string[] = [];
    for (const [i, owner] of ['alice', 'bob', 'alice', 'alice'].entries()) {
      clock += 60_000;
      ids.push((await store.recordIntent(newRecord({ owner, summary: `job ${i}` }))).id);
    }
    await store.update(ids[2]!, { status: 'completed' });

    expect((await store.list()).map((r) => r.id)).toEqual([...ids].reverse());
    expect((await store.list({ owner: 'alice' })).map((r) => r.id)).toEqual([ids[3], ids[2], ids[0]]);
    expect((await store.list({ since: new Date('2025-03-01T10:02:00.000Z') })).map((r) => r.id)).toEqual([
      ids[3],
      ids[2],
      ids[1],
    ]);
    expect((await store.list({ status: ['completed'] })).map((r) => r.id)).toEqual([ids[2]]);
    expect((await store.list({ owner: 'alice', limit: 2 })).map((r) => r.id)).toEqual([ids[3], ids[2]]);
  });

  it('survives a reopen: a new instance on the same dir sees everything', async () => {
    const first = await t.open();
    const a = await first.recordIntent(newRecord({ summary: 'a' }));
    const b = await first.recordIntent(newRecord({ summary: 'b', owner: 'alice' }));
    await first.update(a.id, { outcome: 'submitted', status: 'completed', creditsCharged: 90 });
    await first.close();

    const second = await t.open();
    expect(await second.get(a.id)).toMatchObject({ summary: 'a', status: 'completed', creditsCharged: 90 });
    expect(await second.get(b.id)).toEqual(b);
    expect(await second.list()).toHaveLength(2);
  });
});

describe('loading a large ledger', () => {
  it('folds a file larger than one read chunk, with multi-byte text across chunk edges', async () => {
    const at = '2025-03-01T00:00:00.000Z';
    const lines: string[] = [];
    // ~1.2 KB per line × 5000 = ~6 MB: more than the 4 MiB read chunk.
    for (let i = 0; i < 5000; i++) {
      const data = { ...newRecord({ summary: `${i} ${'é€'.repeat(300 + (i % 13))}` }), createdAt: at, updatedAt: at };
      lines.push(encodeEvent({ v: 1, type: 'intent', id: `id-${i}`, at, data }));
    }
    await mkdir(t.dir, { recursive: true });
    await writeFile(ledgerFile(), lines.join(''));
    const store = await t.open();
    const all = await store.list();
    expect(all).toHaveLength(5000);
    expect(all.every((r) => r.summary === `${r.id.slice(3)} ${'é€'.repeat(300 + (Number(r.id.slice(3)) % 13))}`)).toBe(
      true,
    );
    expect(t.warnings).toEqual([]);
  });
});

describe('spendSince', () => {
  it('counts charges where known, else estimates; subtracts refunds; skips rejected', async () => {
    const store = await t.open();
    const since = new Date(Date.now() - 60_000);
    const charged = await store.recordIntent(newRecord({ estimate: estimate(100, 'x') }));
    await store.update(charged.id, { outcome: 'submitted', creditsCharged: 150 });
    await store.recordIntent(newRecord({ estimate: estimate(200, 'x') })); // pending: estimate held
    const rejected = await store.recordIntent(newRecord({ estimate: estimate(400, 'x') }));
    await store.update(rejected.id, { outcome: 'rejected', status: 'failed' });
    const refunded = await store.recordIntent(newRecord({ estimate: estimate(300, 'x') }));
    await store.update(refunded.id, { outcome: 'submitted', creditsCharged: 300, creditsRefunded: 100 });
    const fullRefund = await store.recordIntent(newRecord({ estimate: estimate(50, 'x') }));
    await store.update(fullRefund.id, { outcome: 'submitted', creditsCharged: 50, creditsRefunded: 80 });
    const unknown = await store.recordIntent(newRecord({ estimate: estimate(25, 'x') }));
    await store.update(unknown.id, { outcome: 'unknown', status: 'unknown' });
    await store.recordIntent(newRecord({ estimate: undefined }));

    // 150 + 200 + (300 - 100) + max(0, 50 - 80) + 25 + 0
    expect(await store.spendSince(since)).toBe(575);
  });

  it('respects the day boundary and the owner', async () => {
    let clock = Date.parse('2025-03-01T23:59:59.999Z');
    const store = await t.open({ now: () => new Date(clock) });
    await store.recordIntent(newRecord({ estimate: estimate(1000, 'x'), owner: 'alice' }));
    clock = Date.parse('2025-03-02T00:00:00.000Z');
    await store.recordIntent(newRecord({ estimate: estimate(100, 'x'), owner: 'alice' }));
    clock += 3_600_000;
    await store.recordIntent(newRecord({ estimate: estimate(10, 'x'), owner: 'bob' }));

    const dayStart = new Date('2025-03-02T00:00:00.000Z');
    expect(await store.spendSince(dayStart)).toBe(110);
    expect(await store.spendSince(dayStart, 'alice')).toBe(100);
    expect(await store.spendSince(dayStart, 'bob')).toBe(10);
    expect(await store.spendSince(new Date('2025-03-01T00:00:00.000Z'))).toBe(1110);
  });
});

describe('findActiveDuplicate', () => {
  it('returns the newest active record with the fingerprint', async () => {
    let clock = Date.parse('2025-03-01T10:00:00.000Z');
    const store = await t.open({ now: () => new Date(clock++) });
    const fp = 'fp-dup';
    expect(await store.findActiveDuplicate(fp)).toBeUndefined();

    const pending = await store.recordIntent(newRecord({ fingerprint: fp }));
    expect((await store.findActiveDuplicate(fp))?.id).toBe(pending.id);

    await store.update(pending.id, { outcome: 'submitted', status: 'processing' });
    expect((await store.findActiveDuplicate(fp))?.id).toBe(pending.id);
    await store.update(pending.id, { status: 'completed' });
    expect(await store.findActiveDuplicate(fp)).toBeUndefined();

    const unknown = await store.recordIntent(newRecord({ fingerprint: fp }));
    await store.update(unknown.id, { outcome: 'unknown', status: 'unknown' });
    const rejected = await store.recordIntent(newRecord({ fingerprint: fp }));
    await store.update(rejected.id, { outcome: 'rejected', status: 'failed' });
    // The newest record is rejected (inactive); the newest *active* one is returned.
    expect((await store.findActiveDuplicate(fp))?.id).toBe(unknown.id);

    const running = await store.recordIntent(newRecord({ fingerprint: fp }));
    await store.update(running.id, { outcome: 'submitted', status: 'submitted' });
    expect((await store.findActiveDuplicate(fp))?.id).toBe(running.id);
    await store.update(running.id, { status: 'failed' });
    expect((await store.findActiveDuplicate(fp))?.id).toBe(unknown.id);

    expect(await store.findActiveDuplicate('other')).toBeUndefined();
  });

  it('scopes by owner when one is given', async () => {
    const store = await t.open();
    const rec = await store.recordIntent(newRecord({ fingerprint: 'fp-o', owner: 'alice' }));
    expect((await store.findActiveDuplicate('fp-o', 'alice'))?.id).toBe(rec.id);
    expect(await store.findActiveDuplicate('fp-o', 'bob')).toBeUndefined();
    expect((await store.findActiveDuplicate('fp-o'))?.id).toBe(rec.id);
  });
});

describe('damaged lines', () => {
  it('skips a torn last line, keeps earlier records, and the next append is readable', async () => {
    const first = await t.open();
    const a = await first.recordIntent(newRecord({ summary: 'a' }));
    const b = await first.recordIntent(newRecord({ summary: 'b' }));
    await first.close();
    // A crash mid-write: half a line, no newline.
    const full = await readFile(ledgerFile(), 'utf8');
    const lastLine = full.trimEnd().split('\n').at(-1)!;
    await appendFile(ledgerFile(), lastLine.slice(0, 40));

    const second = await t.open();
    expect((await second.list()).map((r) => r.summary).sort()).toEqual(['a', 'b']);
    const c = await second.recordIntent(newRecord({ summary: 'c' }));
    await second.close();

    const third = await t.open();
    expect(await third.get(a.id)).toEqual(a);
    expect(await third.get(b.id)).toEqual(b);
    expect((await third.get(c.id))?.summary).toBe('c');
    expect(t.warnings.length).toBeGreaterThan(0);
    expect(t.warnings[0]).toMatch(/skipped 1 damaged line/);
    // The fresh record has a line of its own.
    const lines = (await readFile(ledgerFile(), 'utf8')).split('\n');
    expect(lines.filter((l) => decodeLine(l)?.id === c.id)).toHaveLength(1);
  });

  it('skips a line whose checksum fails, and warns once per instance', async () => {
    const first = await t.open();
    const recs = [];
    for (const s of ['one', 'two', 'three']) recs.push(await first.recordIntent(newRecord({ summary: s })));
    await first.close();
    const text = await readFile(ledgerFile(), 'utf8');
    await writeFile(ledgerFile(), text.replace('"summary":"two"', '"summary":"twx"'));

    const second = await t.open();
    expect((await second.list()).map((r) => r.summary).sort()).toEqual(['one', 'three']);
    expect(await second.get(recs[1]!.id)).toBeUndefined();
    await second.list();
    expect(t.warnings).toHaveLength(1);
  });

  it('treats an update whose intent was lost as damage, not as a record', async () => {
    const first = await t.open();
    const rec = await first.recordIntent(newRecord());
    await first.update(rec.id, { status: 'completed' });
    await first.close();
    const [intent, update] = (await readFile(ledgerFile(), 'utf8')).split('\n');
    await writeFile(ledgerFile(), `${intent!.replace('"fp-1"', '"fp-2"')}\n${update}\n`);
    const second = await t.open();
    expect(await second.list()).toEqual([]);
    expect(t.warnings[0]).toMatch(/skipped 2 damaged line/);
  });

  it('recovers a whole record written right after another process left a torn fragment', async () => {
    const store = await t.open();
    await store.recordIntent(newRecord({ summary: 'before' }));
    // Another process crashed mid-line while this one keeps running and appends next.
    await appendFile(ledgerFile(), '{"v":1,"type":"intent","id":"torn');
    const after = await store.recordIntent(newRecord({ summary: 'after' }));
    const fresh = await t.open();
    expect((await fresh.get(after.id))?.summary).toBe('after');
    expect(await fresh.list()).toHaveLength(2);
  });

  it('does not consume a line still being written, and folds it once complete', async () => {
    const reader = await t.open();
    const at = '2025-03-01T00:00:00.000Z';
    const data = { ...newRecord({ summary: 'complete' }), createdAt: at, updatedAt: at };
    const line = encodeEvent({ v: 1, type: 'intent', id: 'id-1', at, data });
    await appendFile(ledgerFile(), line.slice(0, 50));
    expect(await reader.list()).toEqual([]);
    await appendFile(ledgerFile(), line.slice(50));
    expect((await reader.get('id-1'))?.summary).toBe('complete');
    expect(t.warnings).toEqual([]);
  });
});

describe('several processes on one state dir', () => {
  it('two instances appending interleaved see each other’s records and updates', async () => {
    const a = await t.open();
    const b = await t.open();
    const r1 = await a.recordIntent(newRecord({ summary: 'from a' }));
    const r2 = await b.recordIntent(newRecord({ summary: 'from b' }));
    const r3 = await a.recordIntent(newRecord({ summary: 'from a again' }));
    await b.update(r1.id, { outcome: 'submitted', status: 'processing', requestId: 'req-b' });
    await a.update(r2.id, { outcome: 'unknown', status: 'unknown' });

    for (const store of [a, b]) {
      const all = await store.list();
      expect(all.map((r) => r.id).sort()).toEqual([r1.id, r2.id, r3.id].sort());
      expect(await store.get(r1.id)).toMatchObject({ status: 'processing', requestId: 'req-b' });
      expect(await store.get(r2.id)).toMatchObject({ outcome: 'unknown' });
    }
    // update() returns the merged record even when the base came from the other process.
    const merged = await a.update(r1.id, { status: 'completed' });
    expect(merged).toMatchObject({ requestId: 'req-b', status: 'completed' });
  });

  it('concurrent writes from two instances all land on whole lines', async () => {
    const a = await t.open();
    const b = await t.open();
    const writes = [];
    for (let i = 0; i < 40; i++) {
      writes.push((i % 2 ? a : b).recordIntent(newRecord({ summary: `r${i}`.padEnd(2000, '.') })));
    }
    const recs = await Promise.all(writes);
    const lines = (await readFile(ledgerFile(), 'utf8')).split('\n').filter(Boolean);
    expect(lines).toHaveLength(40);
    expect(lines.every((l) => decodeLine(l) !== undefined)).toBe(true);
    expect((await a.list()).map((r) => r.id).sort()).toEqual(recs.map((r) => r.id).sort());
    expect(t.warnings).toEqual([]);
  });
});
