/**
 * The job-kind registry meta-test (issue 10 item 6): every kind file is registered, every kind states all
 * its facts, and everything that depends on the set of kinds (handles, get_job's enum, status reads, the
 * README endpoint table, the simulator's kind map) reads the registry. Handles round-trip for every kind,
 * odd ids included.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { endpointTable } from '../../scripts/endpoint-table.js';
import {
  decodeHandle,
  encodeHandle,
  JobKindSchema,
  jobKey,
  MAX_HANDLE_LENGTH,
  MAX_ID_LENGTH,
  tryEncodeHandle,
} from '../../src/jobs/handle.js';
import type { KindDef } from '../../src/jobs/kinds/define.js';
import {
  endpointRows,
  JOB_KINDS,
  KINDS,
  OWNED_VIDEO_TYPES,
  POLLABLE_KINDS,
  simJobOf,
} from '../../src/jobs/kinds/index.js';
import { readJob } from '../../src/jobs/status.js';
import { allRoutes } from '../../src/sim/routes/index.js';
import type { SimContext } from '../../src/sim/types.js';
import { ALL_TOOLS } from '../../tools/index.js';
import getJob from '../../tools/jobs/get-job.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const kindsDir = `${root}src/jobs/kinds`;
/** Files in src/jobs/kinds/ that are not a kind. */
const NOT_KINDS = new Set(['index.ts', 'define.ts']);
const defs = KINDS as readonly KindDef[];

describe('job-kind registry', () => {
  it('registers every kind file exactly once, each named after its kind', async () => {
    const files = readdirSync(kindsDir).filter((f) => f.endsWith('.ts') && !NOT_KINDS.has(f));
    const byFile: string[] = [];
    for (const f of files) {
      const mod = (await import(`${kindsDir}/${f}`)) as { default?: KindDef };
      expect(mod.default?.kind, `${f} must default-export a kind`).toBeTypeOf('string');
      expect(f, 'file name = kind with _ → -').toBe(`${mod.default!.kind.replace(/_/g, '-')}.ts`);
      expect(defs, `${f} is in KINDS`).toContain(mod.default);
      byFile.push(mod.default!.kind);
    }
    expect(new Set(JOB_KINDS).size).toBe(JOB_KINDS.length);
    expect([...JOB_KINDS].sort()).toEqual(byFile.sort());
  });

  it('every kind states all its facts', () => {
    const tools = new Set(ALL_TOOLS.map((t) => t.name));
    for (const def of defs) {
      const what = `kind ${def.kind}`;
      expect(def.handleShape, what).toMatch(/^<.+>$/);
      if (def.kind === 'submission') {
        // Store only: never started by an endpoint, never read from the platform or the simulator.
        expect([def.status, def.sim, def.submits.length], what).toEqual([null, null, 0]);
        continue;
      }
      expect(def.submits.length, `${what}: which endpoint starts it`).toBeGreaterThan(0);
      for (const row of def.submits) {
        expect(row.endpoint, what).toMatch(/^POST \/\S+/);
        expect(tools, `${what}: ${row.endpoint} names a tool`).toContain(row.tool.split(' ')[0]);
      }
      if (def.status) {
        expect(def.status.endpoint, what).toMatch(/^GET \/\S+$/);
        expect(def.sim, `${what}: the simulator must keep its jobs`).not.toBeNull();
      }
    }
  });

  it('get_job offers exactly the pollable kinds, in registry order; JobKindSchema all kinds', () => {
    const pollable = defs.filter((d) => d.status !== null).map((d) => d.kind);
    expect(POLLABLE_KINDS).toEqual(pollable);
    expect((getJob.input.kind.unwrap() as { options: string[] }).options).toEqual(pollable);
    expect(JobKindSchema.options).toEqual(defs.map((d) => d.kind));
  });

  it('readJob reads every pollable kind through its own reader and refuses the others', async () => {
    for (const def of defs) {
      const ref = def.sample('x');
      if (def.status) {
        const read = vi.spyOn(def.status, 'read').mockResolvedValue({ status: 'processing', outputs: [] });
        try {
          await readJob({} as never, ref as never);
          expect(read, def.kind).toHaveBeenCalledWith({}, ref, {});
        } finally {
          read.mockRestore();
        }
      } else {
        await expect(readJob({} as never, ref as never), def.kind).rejects.toThrow(/no status endpoint/);
      }
    }
  });

  it("get_job's raw ids make the same job as the kind's handle, each id in its place", () => {
    for (const def of defs.filter((d) => d.status)) {
      const same = def.status!.fromIds({ id: 'x', media: 'video', project_id: 'x', video_type: 'x', billing_id: 'x' });
      expect(jobKey(same as never), def.kind).toBe(jobKey(def.sample('x') as never));
      // Distinct raw ids stay distinct in the handle: none dropped, none read from the wrong field.
      const ref = def.status!.fromIds({ id: 'i', media: 'image', project_id: 'p', video_type: 't', billing_id: 'b' });
      const parts = def.parts(ref);
      expect(new Set(parts).size, `${def.kind}: ${parts.join(':')}`).toBe(parts.length);
      expect(parts, def.kind).toContain('i');
      for (const part of parts) expect(['i', 'image', 'p', 't', 'b'], `${def.kind}: ${part} was given`).toContain(part);
      expect(decodeHandle(encodeHandle(ref as never)), def.kind).toEqual(ref);
      expect(def.remote(ref).id, def.kind).toBe('i');
    }
  });
});

describe('handles round-trip for every kind', () => {
  const ODD = ['abc123', 'a:b', 'a%3Ab', '%', 'x y/z?#&=', 'ü€ 日本', '😀', ' lead', 'a'.repeat(200)];
  for (const def of defs) {
    it(`${def.kind}: ordinary and odd ids`, () => {
      for (const id of ODD) {
        const ref = def.sample(id);
        const handle = tryEncodeHandle(ref as never);
        expect(handle, `${def.kind} ${JSON.stringify(id)}`).toBeDefined();
        expect(handle!.startsWith(`${def.kind}:`)).toBe(true);
        expect(handle!.length).toBeLessThanOrEqual(MAX_HANDLE_LENGTH);
        expect(decodeHandle(handle!), `${def.kind} ${JSON.stringify(id)}`).toEqual(ref);
        expect(jobKey(decodeHandle(handle!)!)).toBe(jobKey(ref as never));
        expect(handle!.split(':').length, 'every id part percent-encoded').toBe(def.parts(ref).length + 1);
      }
    });

    it(`${def.kind}: ids no handle can carry get none, and still have an identity`, () => {
      for (const id of ['\uD800x', 'x\uDC00', '', 'a'.repeat(MAX_ID_LENGTH + 1)]) {
        const ref = def.sample(id);
        expect(tryEncodeHandle(ref as never), `${def.kind} ${JSON.stringify(id)}`).toBeUndefined();
        expect(jobKey(ref as never)).toMatch(new RegExp(`^${def.kind}\u0000`));
      }
      // A lone surrogate reaches the platform as U+FFFD: the same job.
      expect(jobKey(def.sample('\uD800x') as never)).toBe(jobKey(def.sample('\uFFFDx') as never));
      // Within the id bound but too long once encoded: no handle (it could not be passed back).
      const long = def.sample('😀'.repeat(300));
      expect(tryEncodeHandle(long as never)).toBeUndefined();
    });

    it(`${def.kind}: malformed handles decode to nothing`, () => {
      const good = encodeHandle(def.sample('x') as never);
      for (const bad of [`${good}:extra`, `${def.kind}:`, `${def.kind}`, `${good}%`, `${def.kind}:%E0%A4%A`]) {
        expect(decodeHandle(bad), bad).toBeUndefined();
      }
    });
  }
  it('identity: lookup hints are not part of it (model media; upscale is its billing id)', () => {
    const model = (media: 'image' | 'video' | 'any', id = 'r1') => jobKey({ kind: 'model', id, media });
    expect(model('any')).toBe(model('video'));
    expect(model('any')).not.toBe(model('any', 'r2'));
    const up = (id: string, billingId: string) =>
      jobKey({ kind: 'upscale', id, billingId, projectId: 'p', videoType: 'video' });
    expect(up('v1', 'b1')).toBe(up('v2', 'b1'));
    expect(up('v1', 'b1')).not.toBe(up('v1', 'b2'));
    expect(jobKey({ kind: 'gesture', id: 'x' })).not.toBe(jobKey({ kind: 'actor_video', id: 'x' }));
  });

  it('an unknown kind is not a handle', () => {
    for (const bad of ['video:x', 'toString:x', '__proto__:x', ':x']) expect(decodeHandle(bad), bad).toBeUndefined();
  });
});

describe('README endpoint table', () => {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const block = readme.slice(
    readme.indexOf('### Every endpoint of the platform'),
    readme.indexOf('<!-- generated:tools:end -->'),
  );
  const rows = [...block.matchAll(/^\| `([^`]+)` \| (.+) \|$/gm)].map((m) => ({
    endpoint: m[1]!,
    tool: m[2]!.replace(/^`([^`]*)`$/, '$1'),
  }));

  it('is exactly the generated table (run `npm run docs:generate` after changing a kind)', () => {
    expect(rows).toEqual(endpointTable());
  });

  it("holds every kind's submit and status rows", () => {
    for (const def of defs) for (const row of endpointRows(def)) expect(rows, def.kind).toContainEqual(row);
  });
});

describe("the simulator's kind map", () => {
  const ctx = { vendors: {} } as unknown as SimContext;
  const served = allRoutes.map((r) => ({
    method: r.method,
    path: typeof r.path === 'function' ? r.path(ctx) : r.path,
  }));
  /** The README spelling of an endpoint as the simulator serves it (default vendor names, a sample id). */
  const concrete = (endpoint: string) =>
    endpoint
      .replace(/ \(.*\)$/, '')
      .replace(/<vendor([A-Z])>/g, (_, l: string) => `vendor${l.toLowerCase()}`)
      .replace(/\{\w+\}/g, 'req-1');

  it('serves every endpoint of every kind', () => {
    for (const def of defs) {
      for (const { endpoint } of endpointRows(def)) {
        const [method, path] = concrete(endpoint).split(' ') as [string, string];
        const hit = served.some(
          (r) => r.method === method && (typeof r.path === 'string' ? r.path === path : r.path.test(path)),
        );
        expect(hit, `${def.kind}: the simulator serves ${endpoint}`).toBe(true);
      }
    }
  });

  it('keeps each kind under its own simulator job kind, and owned-video types come from the kinds', () => {
    const withSim = defs.filter((d) => d.sim);
    const simKinds = withSim.map((d) => simJobOf(d.kind as never));
    expect(new Set(simKinds).size).toBe(simKinds.length);
    expect(OWNED_VIDEO_TYPES).toEqual(
      Object.fromEntries(withSim.filter((d) => d.sim!.ownedVideoType).map((d) => [d.sim!.job, d.sim!.ownedVideoType])),
    );
    expect(() => simJobOf('submission')).toThrow(/no jobs of kind submission/);
  });
});
