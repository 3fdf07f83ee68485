/** Plain-fetch helpers for simulator tests (the platform client is tested elsewhere). */
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/sim/index.js';

export interface Reply {
  status: number;
  headers: Headers;
  json: any;
  text: string;
}

export interface CallOptions {
  body?: unknown;
  form?: FormData;
  key?: string | null;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

export async function call(sim: Simulator, method: 'GET' | 'POST', path: string, o: CallOptions = {}): Promise<Reply> {
  const url = new URL(sim.baseUrl + path);
  for (const [k, v] of Object.entries(o.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = { ...o.headers };
  const key = o.key === undefined ? sim.apiKey : o.key;
  if (key !== null) headers['X-Api-Key'] = key;
  let body: string | FormData | undefined;
  if (o.form) body = o.form;
  else if (o.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
  }
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

export const get = (sim: Simulator, path: string, query?: Record<string, string>, o: CallOptions = {}) =>
  call(sim, 'GET', path, { ...o, query });
export const post = (sim: Simulator, path: string, body: unknown, o: CallOptions = {}) =>
  call(sim, 'POST', path, { ...o, body });

/** Polls until `probe` returns a value (not undefined); generous deadline, never asserts timing. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Polls a status route until the job leaves `processing`; returns the status `data`. */
export function waitForJob(sim: Simulator, statusPath: string, id: string): Promise<any> {
  return waitFor(async () => {
    const r = await get(sim, statusPath, { id });
    if (r.status !== 200) throw new Error(`status ${r.status}: ${r.text}`);
    return r.json.data.status === 'processing' ? undefined : r.json.data;
  }, `${statusPath}?id=${id}`);
}

export async function fetchBytes(url: string): Promise<Uint8Array> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
export const isPng = (b: Uint8Array) => PNG_SIGNATURE.every((v, i) => b[i] === v);
/** ISO-BMFF: the first box is `ftyp`. */
export const isMp4 = (b: Uint8Array) => Buffer.from(b.slice(4, 8)).toString('ascii') === 'ftyp';

export const PUBLIC_IMAGE = 'https://cdn.example.com/images/product.png';
export const PUBLIC_AUDIO = 'https://cdn.example.com/audio/voice.mp3';

export function useSimulator(opts: SimulatorOptions = {}) {
  const holder: { sim: Simulator } = {} as { sim: Simulator };
  return {
    holder,
    start: async () => {
      holder.sim = await startSimulator(opts);
    },
    stop: async () => {
      await holder.sim?.close();
    },
  };
}

export type { Simulator };
export { startSimulator };
