import { describe, expect, it } from 'vitest';
import { decodeLine, encodeEvent, type LedgerEvent } from '../../../src/jobs/ledger-codec.js';

const ev: LedgerEvent = {
  v: 1,
  type: 'update',
  id: 'abc',
  at: '2025-03-01T00:00:00.000Z',
  data: { status: 'completed', reason: undefined, outputs: [{ url: 'https://x.example.com/ü', media: 'video' }] },
};

describe('ledger line codec', () => {
  it('round-trips an event, keeping an explicit undefined', () => {
    const line = encodeEvent(ev);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.indexOf('\n')).toBe(line.length - 1);
    const back = decodeLine(line.slice(0, -1));
    expect(back).toEqual(ev);
    expect(back && 'reason' in back.data).toBe(true);
  });

  it('tolerates a CRLF ending', () => {
    expect(decodeLine(`${encodeEvent(ev).slice(0, -1)}\r`)).toEqual(ev);
  });

  it('rejects every truncation and a flipped character', () => {
    const line = encodeEvent(ev).slice(0, -1);
    for (let n = 0; n < line.length; n++) expect(decodeLine(line.slice(0, n))).toBeUndefined();
    expect(decodeLine(line.replace('completed', 'completes'))).toBeUndefined();
    expect(decodeLine(line.replace('"v":1', '"v":2'))).toBeUndefined();
  });

  it('finds the whole record glued after a torn fragment', () => {
    const line = encodeEvent(ev).slice(0, -1);
    expect(decodeLine(`${line.slice(0, 30)}${line}`)).toEqual(ev);
    expect(decodeLine(`garbage${line}`)).toEqual(ev);
  });
});
