/**
 * Slack's request signature (issue 28 item 1), checked against Slack's own worked example ("Verifying requests
 * from Slack"), and the refusals: missing header, wrong secret, stale timestamp, a body changed by one byte.
 */
import { describe, expect, it } from 'vitest';
import { slackSignature, verifySlackSignature } from '../../../src/auth/slack-signature.js';

// Slack's published example, verbatim.
const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const TS = '1531420618';
const BODY =
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
const EXPECTED = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';
const AT = Number(TS) * 1000;

const verify = (o: Partial<Parameters<typeof verifySlackSignature>[0]>) =>
  verifySlackSignature({
    secrets: [SECRET],
    timestamp: TS,
    signature: EXPECTED,
    body: Buffer.from(BODY),
    nowMs: AT,
    ...o,
  });

describe("Slack's signature", () => {
  it("computes Slack's published example", () => {
    expect(slackSignature(SECRET, TS, BODY)).toBe(EXPECTED);
    expect(slackSignature(SECRET, TS, Buffer.from(BODY))).toBe(EXPECTED);
  });

  it("verifies Slack's example, with the secret among several (rotation)", () => {
    expect(verify({})).toEqual({ ok: true });
    expect(verify({ secrets: ['another-secret-0123456789', SECRET] })).toEqual({ ok: true });
    // 5 minutes either way is still inside the window.
    expect(verify({ nowMs: AT + 300_000 })).toEqual({ ok: true });
    expect(verify({ nowMs: AT - 300_000 })).toEqual({ ok: true });
  });

  it('refuses a missing header, another secret, a changed body or signature', () => {
    expect(verify({ signature: undefined })).toEqual({ ok: false, reason: 'missing' });
    expect(verify({ timestamp: undefined })).toEqual({ ok: false, reason: 'missing' });
    expect(verify({ secrets: ['another-secret-0123456789'] })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verify({ body: Buffer.from(`${BODY} `) })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verify({ signature: `${EXPECTED.slice(0, -1)}0` })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verify({ signature: 'v0=short' })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verify({ secrets: [] })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('refuses a timestamp more than 5 minutes from now, or not a number', () => {
    expect(verify({ nowMs: AT + 301_000 })).toEqual({ ok: false, reason: 'stale' });
    expect(verify({ nowMs: AT - 301_000 })).toEqual({ ok: false, reason: 'stale' });
    expect(verify({ timestamp: `${TS}.5` })).toEqual({ ok: false, reason: 'stale' });
  });
});
