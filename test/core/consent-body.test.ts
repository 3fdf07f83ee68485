/**
 * Invariant 1, "consent binds what is sent": the confirmation token and the duplicate rule are keyed on the
 * fingerprint of the exact request a billable tool POSTs (route + body, file bytes by digest), not on the
 * arguments. (a) A token quoted for one body is refused for any other body. (b) For every billable tool,
 * what the simulator received canonicalises to what was fingerprinted (the ledger keeps the fingerprint).
 * This harness has no webhooks (they exist in HTTP mode with a public URL only), so the received body is the
 * fingerprinted one exactly. With webhooks on, our callback URL is added at send time after admission
 * (src/paid/callback.ts): test/http/webhooks.test.ts checks that the received body minus that one field
 * fingerprints to the ledger's fingerprint, and that quote → confirm still works.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/paid/fingerprint.js';
import type { LogEntry } from '../../src/sim/request-log.js';
import { billableExample, billableTools } from '../helpers/examples.js';
import { type Harness, type HarnessOptions, startHarness, structured } from '../helpers/harness.js';

let h: Harness | undefined;
let dir: string | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const ALWAYS = { config: { confirm: { mode: 'always' } } } as HarnessOptions;

function postsTo(path: string): LogEntry[] {
  return h!.sim.log.entries().filter((e) => e.method === 'POST' && e.path === path);
}

/** A logged multipart file `{filename, size, contentType, sha256}` in the canonical form of a `FilePart`. */
function asRequestBody(logged: unknown): unknown {
  if (!logged || typeof logged !== 'object') return logged;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(logged as Record<string, unknown>)) {
    const f = v as { filename?: string; size?: number; contentType?: string; sha256?: string };
    out[k] =
      f && typeof f === 'object' && typeof f.sha256 === 'string'
        ? { filename: f.filename, contentType: f.contentType, bytes: { sha256: f.sha256, size: f.size } }
        : v;
  }
  return out;
}

/** The fingerprint of what the simulator received at `entry`, as the runtime would have computed it. */
const receivedFingerprint = (tool: string, entry: LogEntry) =>
  fingerprint(tool, { route: entry.path, body: asRequestBody(entry.body) });

describe('a token is valid for exactly one body', () => {
  it('run_model: a trailing space in params is another body, so the token is refused and nothing sent', async () => {
    h = await startHarness(ALWAYS);
    const ex = billableExample('run_model');
    const args = ex.args(h.sim, 1) as { params: Record<string, unknown> };
    const quoted = structured(await h.call('run_model', args));
    expect(quoted.status).toBe('confirmation_required');

    const padded = { ...args, params: { ...args.params, prompt: `${String(args.params.prompt)} ` } };
    const r = structured(await h.call('run_model', { ...padded, confirmation_token: quoted.confirmation_token }));
    expect(r.status).toBe('confirmation_required');
    expect(String(r.reason)).toMatch(/arguments changed/);
    expect(postsTo(ex.route(h.sim))).toHaveLength(0);

    // The token still works for the body it was quoted for, and that exact body is what goes out.
    const ok = structured(await h.call('run_model', { ...args, confirmation_token: quoted.confirmation_token }));
    expect(ok.status).toBe('submitted');
    const sent = postsTo(ex.route(h.sim));
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toMatchObject({ params: args.params });
  });

  it('create_custom_avatar: a file changed after the quote is other bytes, so the token is refused', async () => {
    dir = await mkdtemp(join(tmpdir(), 'genplat-consent-'));
    h = await startHarness({ config: { ...ALWAYS.config, files: { inputDirs: [dir], staging: undefined } } });
    const path = join(dir, 'face.png');
    const png = (tail: number) => new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0, tail]);
    await writeFile(path, png(1));
    const quoted = structured(await h.call('create_custom_avatar', { image: path }));
    expect(quoted.status).toBe('confirmation_required');

    await writeFile(path, png(2));
    const r = structured(
      await h.call('create_custom_avatar', { image: path, confirmation_token: quoted.confirmation_token }),
    );
    expect(r.status).toBe('confirmation_required');
    expect(String(r.reason)).toMatch(/arguments changed/);
    expect(postsTo('/custom-avatar/generate')).toHaveLength(0);

    // Quoted again for the new bytes: accepted, and the bytes sent are the bytes quoted.
    const again = structured(
      await h.call('create_custom_avatar', { image: path, confirmation_token: r.confirmation_token }),
    );
    expect(again.status).toBe('completed');
    const [sent] = postsTo('/custom-avatar/generate');
    const rec = await h.jobs.get(String(again.handle));
    expect(receivedFingerprint('create_custom_avatar', sent!)).toBe(rec?.fingerprint);
  });
});

describe('what the platform received is what was fingerprinted, for every billable tool', () => {
  it.each(billableTools().map((t) => t.name))('%s', async (tool) => {
    // Policy never: consent is not the subject; the ledger still records the fingerprint it admitted.
    h = await startHarness();
    const ex = billableExample(tool);
    const r = structured(await h.call(tool, ex.args(h.sim, 7)));
    expect(['submitted', 'completed']).toContain(r.status);
    const sent = postsTo(ex.route(h.sim));
    expect(sent).toHaveLength(1);
    const rec = await h.jobs.get(String(r.handle));
    expect(rec?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(receivedFingerprint(tool, sent[0]!)).toBe(rec?.fingerprint);
  });
});
