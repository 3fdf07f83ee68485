import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimate } from '../../../src/jobs/envelope.js';
import type { JobStore } from '../../../src/jobs/store.js';
import { evaluateAdmission } from '../../../src/paid/admission.js';
import { tokenCarrier } from '../../../src/paid/consent.js';
import { type Expected, issueToken, TOKEN_TTL_MS, verifyToken } from '../../../src/paid/token.js';
import { openSqliteStore } from '../../../src/store/sqlite.js';

const SECRET = Buffer.alloc(32, 7);
const EXP: Expected = { tool: 'create_talking_video', fingerprint: 'f'.repeat(64), credits: 100, owner: undefined };
const NOW = 1_800_000_000_000;

describe('verifyToken', () => {
  const { token, expiresAt } = issueToken(SECRET, EXP, NOW);

  it('accepts its own token and expires after the TTL', () => {
    expect(expiresAt.getTime()).toBe(NOW + TOKEN_TTL_MS);
    expect(verifyToken(SECRET, token, EXP, NOW).ok).toBe(true);
    expect(verifyToken(SECRET, token, EXP, NOW + TOKEN_TTL_MS - 1).ok).toBe(true);
    expect(verifyToken(SECRET, token, EXP, NOW + TOKEN_TTL_MS)).toEqual({
      ok: false,
      reason: expect.stringMatching(/expired/),
    });
  });

  it.each([
    ['another tool', { tool: 'run_model' }, /issued for create_talking_video/],
    ['changed arguments', { fingerprint: 'e'.repeat(64) }, /arguments changed/],
    ['changed estimate', { credits: 200 }, /estimate changed/],
    ['another owner', { owner: 'alice' }, /another caller/],
  ])('refuses %s', (_n, change, reason) => {
    const r = verifyToken(SECRET, token, { ...EXP, ...change }, NOW);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(reason);
  });

  it('binds the owner both ways', () => {
    const alice = issueToken(SECRET, { ...EXP, owner: 'alice' }, NOW).token;
    expect(verifyToken(SECRET, alice, { ...EXP, owner: 'alice' }, NOW).ok).toBe(true);
    expect(verifyToken(SECRET, alice, EXP, NOW).ok).toBe(false);
  });

  it('refuses another secret, a tampered payload and garbage', () => {
    expect(verifyToken(Buffer.alloc(32, 8), token, EXP, NOW)).toMatchObject({ ok: false, reason: /not valid/ });
    const [body, mac] = token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = `${Buffer.from(JSON.stringify({ ...claims, credits: 1 })).toString('base64url')}.${mac}`;
    expect(verifyToken(SECRET, forged, { ...EXP, credits: 1 }, NOW).ok).toBe(false);
    for (const bad of ['', 'abc', 'a.b.c', `${body}.`, '.x']) expect(verifyToken(SECRET, bad, EXP, NOW).ok).toBe(false);
  });

  it('uses a fresh nonce each time', () => {
    expect(issueToken(SECRET, EXP, NOW).token).not.toBe(issueToken(SECRET, EXP, NOW).token);
  });
});

/** Verify (pure) then consume the nonce inside store.admit, as the billing pipeline does. */
let n = 0;
async function redeemToken(jobs: JobStore, token: string, expected: Expected, now: number) {
  const a = await tokenCarrier(
    token,
    () => jobs.consentKey(),
    () => now,
  ).ask({
    expected,
    estimate: estimate(expected.credits, 'x'),
    message: '',
    earlier: undefined,
  });
  if (a.kind !== 'granted') return { ok: false, reason: a.kind === 'fallback' ? a.reason : a.kind };
  const r = await jobs.admit(
    {
      tool: 't',
      kind: 'actor_video',
      fingerprint: `f${n++}`,
      summary: 's',
      estimate: undefined,
      consent: 'token',
      owner: undefined,
    },
    { maxCreditsPerCall: 1e9, maxCreditsPerDay: 1e9, dayStart: new Date(0), nonce: a.nonce },
    evaluateAdmission,
  );
  return r.admitted ? { ok: true } : { ok: false, reason: r.reason === 'token_used' ? 'already used' : r.reason };
}

describe('a token is redeemed once (nonce consumed by store.admit)', () => {
  let dir: string;
  let jobs: JobStore;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'genplat-token-'));
    jobs = await openSqliteStore(dir);
  });
  afterAll(async () => {
    await jobs.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('accepts once, then refuses as used — also from a second ledger on the same dir', async () => {
    const now = Date.now();
    const { token } = issueToken(await jobs.consentKey(), EXP, now);
    expect((await redeemToken(jobs, token, EXP, now)).ok).toBe(true);
    expect(await redeemToken(jobs, token, EXP, now)).toMatchObject({ ok: false, reason: /already used/ });

    const other = await openSqliteStore(dir);
    try {
      const second = issueToken(await other.consentKey(), EXP, now).token;
      expect((await redeemToken(jobs, second, EXP, now)).ok).toBe(true);
      expect((await redeemToken(other, second, EXP, now)).ok).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('does not burn the nonce of a token refused for another reason', async () => {
    const now = Date.now();
    const { token } = issueToken(await jobs.consentKey(), EXP, now);
    expect((await redeemToken(jobs, token, { ...EXP, credits: 5 }, now)).ok).toBe(false);
    expect((await redeemToken(jobs, token, EXP, now)).ok).toBe(true);
  });
});
