/**
 * Inputs and state-dir damage that used to end in "Internal error" (or a crash) now get an answer naming the
 * argument path or the state file and the fix; nothing is sent, and the server keeps serving.
 * Found by trying them through the harness: deep nesting, a damaged secret, a checksum-valid ledger line that
 * is not a record, the send lock or the nonces folder of the wrong type, a state dir replaced by a file.
 */
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/jobs/ledger.js';
import { encodeEvent, LEDGER_VERSION } from '../../src/jobs/ledger-codec.js';
import { StateError } from '../../src/jobs/state-error.js';
import { billableExample, billablePosts } from '../helpers/examples.js';
import { type Harness, type HarnessOptions, startHarness, structured, text } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

const ALWAYS = { config: { confirm: { mode: 'always' } } } as HarnessOptions;
const talking = (n: number) => billableExample('create_talking_video').args(h!.sim, n);

function nest(levels: number, wrap: (v: unknown) => unknown): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < levels; i++) v = wrap(v);
  return v;
}

/** An error answer that names `what`, is not the generic internal error, and sent nothing billable. */
function expectNamedRefusal(r: Awaited<ReturnType<Harness['call']>>, what: RegExp): void {
  expect(r.isError).toBe(true);
  expect(text(r)).not.toMatch(/Internal error/);
  expect(text(r)).toMatch(what);
  expect(billablePosts(h!.sim)).toBe(0);
}

/** The server still answers: a quote for an ordinary call. */
async function stillServes(): Promise<void> {
  const r = await h!.call('create_talking_video', talking(99));
  expect(r.isError).toBeFalsy();
  expect(['confirmation_required', 'submitted']).toContain(structured(r).status);
}

describe('deep nesting', () => {
  it.each([
    ['objects', (v: unknown) => ({ a: v })],
    ['arrays', (v: unknown) => [v]],
  ])('run_model params nested 10,000 levels (%s): refused naming the path', async (_what, wrap) => {
    h = await startHarness();
    const args = billableExample('run_model').args(h.sim, 1) as { params: Record<string, unknown> };
    const r = await h.call('run_model', { ...args, params: { ...args.params, extra: nest(10_000, wrap) } });
    expectNamedRefusal(r, /params\.extra(\.a|\[0\])+.*nested deeper than \d+ levels/);
    await stillServes();
  });

  it('create_template_video fields nested 10,000 levels: refused naming the field', async () => {
    h = await startHarness();
    const args = billableExample('create_template_video').args(h.sim, 1) as { fields: Record<string, unknown> };
    const r = await h.call('create_template_video', {
      ...args,
      fields: { ...args.fields, product_name: nest(10_000, (v) => ({ a: v })) },
    });
    expectNamedRefusal(r, /fields\.product_name/);
    await stillServes();
  });
});

describe('a damaged state dir', () => {
  it('a garbage secret file: names the file and says to delete it; works again once deleted', async () => {
    h = await startHarness(ALWAYS);
    await writeFile(join(h.stateDir, 'secret'), 'garbage');
    const r = await h.call('create_talking_video', talking(1));
    expectNamedRefusal(r, /secret.*damaged[\s\S]*Delete that file/);
    await rm(join(h.stateDir, 'secret'));
    await stillServes();
  });

  it('a ledger line with a valid checksum that is not a record is skipped, not a crash of list_jobs', async () => {
    h = await startHarness();
    const at = new Date().toISOString();
    const junk = [
      { v: LEDGER_VERSION, type: 'intent', id: 'junk1', at, data: { 0: 'a', 1: 'b' } },
      { v: LEDGER_VERSION, type: 'intent', id: 'junk2', at, data: { createdAt: 5, status: 7, outputs: 3 } },
    ] as const;
    for (const ev of junk) await appendFile(join(h.stateDir, 'ledger.jsonl'), encodeEvent(ev as never));
    const sent = await h.call('create_talking_video', talking(2));
    expect(structured(sent).status).toBe('submitted');
    const list = await h.call('list_jobs', {});
    expect(list.isError).toBeFalsy();
    expect(JSON.stringify(structured(list))).not.toContain('junk');
    // Counted as damaged (one warning), like a torn line.
    const warned: string[] = [];
    const again = await openLedger(h.stateDir, { log: { warn: (m: string) => warned.push(m) } });
    expect(await again.list()).toHaveLength(1);
    await again.close();
    expect(warned.join('\n')).toMatch(/skipped 2 damaged line/);
  });

  it('send.lock is a folder: names it and says to remove it, at once (not after the lock wait)', async () => {
    h = await startHarness();
    await mkdir(join(h.stateDir, 'send.lock'));
    const t0 = Date.now();
    const r = await h.call('create_talking_video', talking(3));
    expectNamedRefusal(r, /send\.lock is a folder where a file belongs[\s\S]*Remove that folder/);
    expect(Date.now() - t0).toBeLessThan(4_000);
    await rm(join(h.stateDir, 'send.lock'), { recursive: true });
    await stillServes();
  });

  it('the nonces folder is a file: redeeming a token names it, nothing sent', async () => {
    h = await startHarness(ALWAYS);
    const token = structured(await h.call('create_talking_video', talking(4))).confirmation_token;
    await rm(join(h.stateDir, 'nonces'), { recursive: true });
    await writeFile(join(h.stateDir, 'nonces'), 'x');
    const r = await h.call('create_talking_video', { ...talking(4), confirmation_token: token });
    expectNamedRefusal(r, /nonces.*(not a folder|folder)/);
  });

  it('the state dir replaced by a file while serving: names GENPLAT_STATE_DIR, nothing sent', async () => {
    h = await startHarness(ALWAYS);
    await rm(h.stateDir, { recursive: true, force: true });
    await writeFile(h.stateDir, 'x');
    const r = await h.call('create_talking_video', talking(5));
    expectNamedRefusal(r, /GENPLAT_STATE_DIR/);
    await rm(h.stateDir, { force: true });
  });

  it('opening a state dir that is a file fails with a StateError naming the path and the fix', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'genplat-state-'));
    try {
      const file = join(dir, 'state');
      await writeFile(file, 'x');
      const err = await openLedger(file).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StateError);
      expect(String((err as StateError).message)).toContain(file);
      expect((err as StateError).nextStep).toMatch(/GENPLAT_STATE_DIR/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('permission and disk errors map to the path and a fix (root cannot provoke EACCES in a test)', () => {
    const e = (code: string) => Object.assign(new Error(code), { code });
    expect(String((StateError.from(e('EACCES'), '/s/ledger.jsonl') as StateError).message)).toMatch(
      /\/s\/ledger\.jsonl is not writable/,
    );
    expect((StateError.from(e('ENOSPC'), '/s') as StateError).nextStep).toMatch(/disk space/);
    const plain = new Error('no code');
    expect(StateError.from(plain, '/s')).toBe(plain);
  });
});
