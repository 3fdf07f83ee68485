import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { sc, startHttpFixture, TOKEN_A, TOKEN_B, text, type HttpFixture } from './helpers.js';

let f: HttpFixture | undefined;
afterAll(async () => { await f?.close(); });

describe('review: owner isolation while the store is away', () => {
  it('S1b B reads A\'s job (outputs) by A\'s handle once one spool entry exists', async () => {
    const proto = Object.getPrototypeOf(await openSqliteStore(mkdtempSync(join(tmpdir(), 'rv-')))) as Record<string, (...a: unknown[]) => unknown>;
    const mode = { v: 'up' as 'up' | 'settle' | 'down' };
    for (const m of ['settle', 'getByRef', 'get', 'observe', 'tryLease', 'list', 'track']) {
      const orig = proto[m]!;
      proto[m] = function (this: unknown, ...a: unknown[]) {
        if (mode.v === 'down' || (mode.v === 'settle' && m === 'settle')) return Promise.reject(new Error('connect ECONNREFUSED (store away)'));
        return orig.apply(this, a);
      };
    }
    f = await startHttpFixture({ confirm: { mode: 'never' } });
    const a = await f.connect(TOKEN_A);
    const b = await f.connect(TOKEN_B);
    const ja = sc(await a.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Secret of A.' }));
    const hA = ja.handle as string;
    await new Promise((r) => setTimeout(r, 300));
    console.log('S1b A reads own:', JSON.stringify(sc(await a.call('get_job', { handle: hA }))).slice(0, 200));
    const refused = await b.call('get_job', { handle: hA });
    console.log('S1b B, store up:', refused.isError, text(refused).slice(0, 120));
    mode.v = 'settle';
    const jb = sc(await b.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'B job while the store blinks.' }));
    console.log('S1b B own job spooled:', jb.status, jb.handle);
    mode.v = 'down';
    const leak = await b.call('get_job', { handle: hA });
    console.log('S1b B, store away:', leak.isError, JSON.stringify(leak.structuredContent ?? text(leak)).slice(0, 400));
    mode.v = 'up';
  });
});
