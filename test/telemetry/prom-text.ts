/**
 * The Prometheus text format as a list of samples, and a scrape of `/metrics` (test/telemetry/*): parsed here
 * rather than trusted to the exporter that wrote it.
 */
import type { HttpFixture } from '../http/helpers.js';

/** One sample of the Prometheus text format: name, labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseProm(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The sum of `name`'s samples whose labels include `where`. */
export const sum = (samples: Sample[], name: string, where: Record<string, string> = {}) =>
  samples
    .filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);

export async function scrape(f: HttpFixture, authorization?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(new URL('/metrics', f.url), {
    headers: authorization ? { authorization } : {},
  });
  return { status: res.status, text: await res.text() };
}
