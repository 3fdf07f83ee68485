/**
 * Line format of the JSONL ledger. One event per line:
 *
 *   {"v":1,"type":"intent"|"update","id":"…","at":"ISO","data":{…},"crc":"8 hex"}
 *
 * `crc` is the first 8 hex digits of sha256 over the exact bytes of the line without the `crc` member
 * (i.e. the JSON of `{v,type,id,at,data}`). Checking the raw text rather than a re-serialisation means a
 * torn or bit-flipped line can never pass, whatever JSON.parse would make of it. sha256 instead of CRC32
 * because `zlib.crc32` only exists from Node 20.15 and we support every Node 20.
 */
import { createHash } from 'node:crypto';

export const LEDGER_VERSION = 1;
export type EventType = 'intent' | 'update';

export interface LedgerEvent {
  v: typeof LEDGER_VERSION;
  type: EventType;
  /** Ledger record id. */
  id: string;
  /** ISO instant the event was written. */
  at: string;
  data: Record<string, unknown>;
}

const CRC_TAIL = /,"crc":"([0-9a-f]{8})"\}$/;
/** Every line starts with this prefix (JSON.stringify keeps insertion order), which lets a reader find a
 * whole record glued after a torn fragment: inside a JSON string the quotes would be escaped. */
const LINE_START = '{"v":1,"type":"';

function checksum(body: string): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 8);
}

/**
 * `JSON.stringify` drops `undefined` members, which would make a patch unable to clear a field. Records
 * never hold `null`, so a top-level `undefined` is written as `null` and read back as `undefined`.
 */
function undefinedToNull(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) out[k] = v === undefined ? null : v;
  return out;
}

function nullToUndefined(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) out[k] = v === null ? undefined : v;
  return out;
}

/** Serialises one event as a complete line, trailing newline included. */
export function encodeEvent(ev: LedgerEvent): string {
  const body = JSON.stringify({ v: ev.v, type: ev.type, id: ev.id, at: ev.at, data: undefinedToNull(ev.data) });
  return `${body.slice(0, -1)},"crc":"${checksum(body)}"}\n`;
}

function decodeExact(text: string): LedgerEvent | undefined {
  const m = CRC_TAIL.exec(text);
  if (!m) return undefined;
  const body = `${text.slice(0, m.index)}}`;
  if (checksum(body) !== m[1]) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object') return undefined;
  const p = parsed as Record<string, unknown>;
  if (p.v !== LEDGER_VERSION || (p.type !== 'intent' && p.type !== 'update')) return undefined;
  if (typeof p.id !== 'string' || typeof p.at !== 'string') return undefined;
  if (!p.data || typeof p.data !== 'object' || Array.isArray(p.data)) return undefined;
  return {
    v: LEDGER_VERSION,
    type: p.type,
    id: p.id,
    at: p.at,
    data: nullToUndefined(p.data as Record<string, unknown>),
  };
}

/**
 * Decodes one line (without its newline). Returns undefined for a torn or corrupted line. When a crash left
 * a fragment without a newline and another process appended after it, the valid record at the end of the
 * glued line is still recovered.
 */
export function decodeLine(line: string): LedgerEvent | undefined {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (text.length === 0) return undefined;
  const whole = decodeExact(text);
  if (whole) return whole;
  let from = text.indexOf(LINE_START, 1);
  while (from > 0) {
    const ev = decodeExact(text.slice(from));
    if (ev) return ev;
    from = text.indexOf(LINE_START, from + 1);
  }
  return undefined;
}
