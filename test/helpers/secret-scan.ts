/**
 * Invariant 5 helpers: the forms a leaked secret can take, a scanner over named texts, and readers for
 * everything the server leaves behind (state dir files, docs).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

export interface Needle {
  form: string;
  needle: string;
}

export interface Leak {
  source: string;
  form: string;
  /** A little text around the hit, with the secret itself masked. */
  context: string;
}

/**
 * The ways a secret can appear in text: as is (any case), URL-encoded, and base64 / base64url at each of
 * the three byte alignments it can have inside a longer encoded string (for each, the characters that
 * depend on the secret's bytes alone).
 */
export function secretForms(secret: string): Needle[] {
  const out: Needle[] = [
    { form: 'plain', needle: secret },
    { form: 'url-encoded', needle: encodeURIComponent(secret) },
    { form: 'form-encoded', needle: new URLSearchParams({ k: secret }).toString().slice(2) },
  ];
  const bytes = Buffer.from(secret, 'utf8');
  for (let offset = 0; offset < 3; offset++) {
    const enc = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Drop the first group when it mixes in padding bytes, and the last group (it mixes with what follows).
    const core = enc.slice(offset === 0 ? 0 : 4, Math.floor((offset + bytes.length) / 3) * 4);
    if (core.length < 8) continue;
    out.push({ form: `base64@${offset}`, needle: core });
    out.push({ form: `base64url@${offset}`, needle: core.replace(/\+/g, '-').replace(/\//g, '_') });
  }
  // Dedupe (url-encoding an alphanumeric key changes nothing).
  return out.filter((n, i) => out.findIndex((m) => m.needle === n.needle) === i);
}

/** Every occurrence of any form of `secret` in `sources` (case-insensitive for the plain form). */
export function scanForSecret(secret: string, sources: { name: string; text: string }[]): Leak[] {
  const leaks: Leak[] = [];
  const forms = secretForms(secret);
  for (const { name, text } of sources) {
    for (const { form, needle } of forms) {
      const hay = form === 'plain' ? text.toLowerCase() : text;
      const n = form === 'plain' ? needle.toLowerCase() : needle;
      let at = hay.indexOf(n);
      while (at !== -1) {
        const context = text
          .slice(Math.max(0, at - 60), at + n.length + 60)
          .split(text.slice(at, at + n.length))
          .join('<SECRET>');
        leaks.push({ source: name, form, context });
        at = hay.indexOf(n, at + 1);
      }
    }
  }
  return leaks;
}

/** Every regular file under `dir` as text (the ledger, its lock and secret files, whatever else is there). */
export async function readTree(dir: string): Promise<{ name: string; text: string }[]> {
  const out: { name: string; text: string }[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) await walk(p);
      else if (entry.isFile())
        out.push({ name: `state:${relative(dir, p)}`, text: (await readFile(p)).toString('latin1') });
    }
  };
  await walk(dir);
  return out;
}
