/**
 * Invariant 2: a paid POST is never sent twice by us. A 5xx after accept, a timeout, or a reset after accept
 * gives exactly one POST, an `unknown` ledger record with the request id, an `unknown` envelope, and an
 * identical retry refused as a duplicate until `allow_duplicate: true` (which still needs consent).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fingerprint } from '../../src/paid/fingerprint.js';
import { issueToken } from '../../src/paid/token.js';
import type { FaultSpec } from '../../src/sim/index.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

const TOOL = 'create_talking_video';
const ARGS = { avatar_id: 'av_marcus', voice_script: 'Fault injection, take one.' };
const POSTS = { method: 'POST', path: '/video/generate' } as const;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const faults: [string, Omit<FaultSpec, 'path' | 'method'>][] = [
  ['5xx after accept', { kind: 'server_error_after_accept' }],
  // The sim accepts the job and holds the answer far past the client's timeout.
  ['timeout', { kind: 'delay', delayMs: 1_500 }],
  ['reset after accept', { kind: 'reset_after_accept' }],
];

describe.each(faults)('%s on POST /video/generate', (_name, fault) => {
  it('records unknown, refuses an identical retry, allows it with allow_duplicate and consent', async () => {
    h = await startHarness({ config: { confirm: { mode: 'always' } }, clientTimeoutMs: 300 });
    h.sim.faults.add({ method: 'POST', path: '/video/generate', ...fault });

    const quote = structured(await h.call(TOOL, ARGS));
    expect(quote.status).toBe('confirmation_required');
    const r = await h.call(TOOL, { ...ARGS, confirmation_token: quote.confirmation_token });
    const s = structured(r);

    // Exactly one POST, whatever happened to its answer. The sim logs a request once it has answered it,
    // so the delayed one appears only when the sim gives up holding it: wait for that event.
    await vi.waitFor(() => expect(h!.sim.log.count(POSTS)).toBe(1), { timeout: 10_000, interval: 50 });
    const sent = h.sim.log.entries().find((e) => e.method === 'POST' && e.path === '/video/generate')!;

    expect(r.isError).toBeFalsy();
    expect(s.status).toBe('unknown');
    expect(s.handle).toMatch(/^submission:/);
    expect(s.request_id).toBe(sent.requestId);
    expect(String(s.reason)).toMatch(/may or may not have been accepted/);
    expect(String(s.next_step)).toMatch(/allow_duplicate/);

    const rec = await h.jobs.get(s.handle!);
    expect(rec).toMatchObject({ outcome: 'unknown', status: 'unknown', requestId: sent.requestId, tool: TOOL });

    // Identical retry, no token: refused as a duplicate before any consent is offered.
    const retry = await h.call(TOOL, ARGS);
    expect(retry.isError).toBe(true);
    expect(text(retry)).toMatch(/duplicate/);
    expect(text(retry)).toContain(s.handle!);
    // Identical retry with a fresh valid token: still refused.
    const fresh = issueToken(
      await h.jobs.consentKey(),
      {
        tool: TOOL,
        fingerprint: fingerprint(TOOL, { route: '/video/generate', body: ARGS }),
        credits: 100,
        owner: undefined,
      },
      Date.now(),
    ).token;
    const retry2 = await h.call(TOOL, { ...ARGS, confirmation_token: fresh });
    expect(retry2.isError).toBe(true);
    expect(text(retry2)).toMatch(/duplicate/);
    expect(h.sim.log.count(POSTS)).toBe(1);

    // The server keeps answering other calls.
    const other = await h.call(TOOL, { ...ARGS, voice_script: 'A different video.' });
    expect(structured(other).status).toBe('confirmation_required');
    expect((await h.client.listTools()).tools.length).toBeGreaterThan(0);

    // allow_duplicate: true goes through, but only with consent.
    const dupQuote = structured(await h.call(TOOL, { ...ARGS, allow_duplicate: true }));
    expect(dupQuote.status).toBe('confirmation_required');
    expect(h.sim.log.count(POSTS)).toBe(1);
    const dup = await h.call(TOOL, { ...ARGS, allow_duplicate: true, confirmation_token: dupQuote.confirmation_token });
    expect(structured(dup).status).toBe('submitted');
    expect(h.sim.log.count(POSTS)).toBe(2);
  });
});

describe('definitive rejection', () => {
  it('a 4xx from the platform is recorded as rejected and does not block a corrected retry', async () => {
    h = await startHarness();
    // An audio URL the platform cannot fetch: only the platform can tell (unknown catalog ids are refused
    // locally, before any POST: test/invariants/catalog-ids.test.ts).
    const BAD = { ...ARGS, voice_url: 'https://cdn.example.com/unreachable.mp3' };
    const r = await h.call(TOOL, BAD);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/400|not accessible/i);
    expect(text(r)).toMatch(/Request id: /);
    expect(h.sim.log.count(POSTS)).toBe(1);
    const [rec] = await h.jobs.list({ limit: 1 });
    expect(rec).toMatchObject({ outcome: 'rejected', tool: TOOL });
    // Rejected records never count as duplicates.
    const again = await h.call(TOOL, BAD);
    expect(text(again)).not.toMatch(/duplicate/);
    expect(h.sim.log.count(POSTS)).toBe(2);
  });
});
