/**
 * Invariants 2 and 3 as a matrix: every billable tool in ALL_TOOLS × every simulator fault kind, on the
 * job-starting POST and on the status reads that follow it.
 *
 * POST cells: at most one POST reaches the route; the ledger holds the submission with the right outcome
 * (`unknown` for anything that may have been accepted, `rejected` for a definitive 429) and the request id
 * the simulator logged; the agent is told what happened and what to do; an identical retry (with fresh
 * consent: the `never` policy consents on every call) is refused while the outcome is unknown and sends
 * nothing; a rejected one may be sent again; and the server keeps answering.
 *
 * GET cells: a fault on the first status read (times: 1) costs nothing: the read is retried, the job is
 * followed to `completed`, the handle and ledger record survive, and the POST is still sent once.
 *
 * Each cell gets its own simulator and ledger (an upscale replaces its video, and unknown outcomes block
 * identical calls for the rest of a ledger's day), and cells run concurrently.
 */
import { describe, it, vi } from 'vitest';
import type { FaultKind } from '../../src/sim/faults.js';
import { type FaultSpec, type Simulator, startSimulator } from '../../src/sim/index.js';
import { billableExample, billableTools } from '../helpers/examples.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

/**
 * The platform client's timeout in the `delay` cells: short so a held answer times out quickly, but 3 s so an
 * ordinary answer never does on a loaded 2-core CI box (cells run concurrently, in two era projects; at 1 s a
 * 429 once arrived late under load and the cell saw `unknown`).
 */
const CLIENT_TIMEOUT_MS = 3_000;
/**
 * Every other cell's: no answer is held there, so the timeout decides nothing but a flake. At 3 s a 429 still
 * arrived late under load (a load average of 6-12 on 2 cores, 12 cells at a time) and the cell saw `unknown`.
 */
const GENEROUS_TIMEOUT_MS = 30_000;
const timeoutFor = (kind: FaultKind) => (kind === 'delay' ? CLIENT_TIMEOUT_MS : GENEROUS_TIMEOUT_MS);
/**
 * A cell's bound (vitest's 30 s default ran out under load: 5 cells at a time, two era projects). Every wait in a
 * cell ends on an event; more cells at a time (vitest maxConcurrency 10) made ordinary answers miss the 3 s of
 * the delay cells on a loaded 2-core box, so the default of 5 stays.
 */
const CELL_BOUND_MS = 120_000;
/** `delay` faults hold the answer 2 s past the timeout: certainly past it, whatever the scheduling jitter. */
const HOLD_MS = 5_000;
/** The matrix is about sending, not consent or ceilings (those have their own suites). */
const CONFIG = { confirm: { mode: 'never' }, maxCreditsPerCall: 1_000_000, maxCreditsPerDay: 10_000_000 } as const;

type Expected = 'unknown' | 'rejected';
/**
 * Every fault kind the simulator has (the Record makes a new kind a type error here until it is covered).
 * On a POST, anything that may have reached the handler is `unknown`: after-accept faults obviously, but a
 * plain 5xx, a 503 or a reset too, because the client cannot tell them from one that happened after
 * accepting. Only a 429 is a definitive "not accepted".
 */
const FAULTS: Record<FaultKind, { spec: Omit<FaultSpec, 'path' | 'method'>; post: Expected }> = {
  server_error_after_accept: { spec: { kind: 'server_error_after_accept' }, post: 'unknown' },
  server_error: { spec: { kind: 'server_error' }, post: 'unknown' },
  delay: { spec: { kind: 'delay', delayMs: HOLD_MS }, post: 'unknown' },
  reset: { spec: { kind: 'reset' }, post: 'unknown' },
  reset_after_accept: { spec: { kind: 'reset_after_accept' }, post: 'unknown' },
  malformed_json: { spec: { kind: 'malformed_json' }, post: 'unknown' },
  rate_limit: { spec: { kind: 'rate_limit', retryAfterS: 1 }, post: 'rejected' },
  unavailable: { spec: { kind: 'unavailable' }, post: 'unknown' },
};
const KINDS = Object.keys(FAULTS) as FaultKind[];

const TOOLS = billableTools().map((t) => t.name);
const POLLABLE = TOOLS.filter((t) => billableExample(t).pollable);

async function cell<T>(body: (h: Harness, sim: Simulator) => Promise<T>, clientTimeoutMs: number): Promise<T> {
  const sim = await startSimulator({ timing: 'test' });
  const h = await startHarness({ sim, clientTimeoutMs, config: CONFIG });
  try {
    return await body(h, sim);
  } finally {
    await h.close();
    await sim.close();
  }
}

const posts = (sim: Simulator, route: string) => sim.log.count({ method: 'POST', path: route });

/** Waits (re-calling wait_for_jobs, like an agent) until the job is terminal; returns its envelope. */
async function waitTerminal(h: Harness, handle: string): Promise<Record<string, unknown>> {
  // A bound only (each wait_for_jobs returns when the job is final); 20 s ran out under load.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const w = structured(await h.call('wait_for_jobs', { handles: [handle], max_wait_s: 10 }));
    const job = (w.jobs as Record<string, unknown>[])[0]!;
    if (job.status === 'completed' || job.status === 'failed' || Date.now() > deadline) return job;
  }
}

describe.concurrent.each(TOOLS)('POST faults: %s', (tool) => {
  it.for(KINDS)('%s', { timeout: CELL_BOUND_MS }, async (kind, { expect }) => {
    const fault = FAULTS[kind];
    await cell(async (h, sim) => {
      const ex = billableExample(tool);
      const route = ex.route(sim);
      const args = ex.args(sim, 1);
      sim.faults.add({ method: 'POST', path: route, ...fault.spec });

      const r = await h.call(tool, args);
      // The sim logs a request once it answered (or gave up on) it: a held answer appears after HOLD_MS.
      await vi.waitFor(() => expect(posts(sim, route)).toBeGreaterThanOrEqual(1), { timeout: 10_000, interval: 25 });
      expect(posts(sim, route), 'POSTs to the route').toBe(1);
      const sent = sim.log.entries().find((e) => e.method === 'POST' && e.path === route)!;

      const records = (await h.jobs.list()).filter((rec) => rec.tool === tool);
      expect(records, 'ledger records for this tool').toHaveLength(1);
      const rec = records[0]!;
      expect(rec.requestId, 'ledger request id = the x-request-id the sim saw').toBe(sent.requestId);
      expect(rec.outcome).toBe(fault.post);

      const s = structured(r);
      if (fault.post === 'unknown') {
        expect(r.isError, text(r)).toBeFalsy();
        expect(s.status).toBe('unknown');
        expect(s.handle).toBe(rec.handle);
        expect(s.request_id).toBe(sent.requestId);
        expect(String(s.reason)).toMatch(/may or may not have been accepted/);
        expect(String(s.next_step)).toMatch(/allow_duplicate/);
        expect(text(r)).toMatch(/unknown/i);

        // The identical retry (the policy consents afresh) is refused before anything is sent.
        const retry = await h.call(tool, args);
        expect(retry.isError, text(retry)).toBe(true);
        expect(text(retry)).toMatch(/duplicate|still active/i);
        expect(text(retry)).toMatch(/nothing was sent|allow_duplicate|wait_for_jobs/i);
      } else {
        expect(r.isError, 'a definitive rejection is an error result').toBe(true);
        expect(text(r)).toMatch(/429|rate/i);
        expect(text(r)).toMatch(/wait/i);
        expect(rec.status).toBe('failed');

        // Nothing was created, so the same call may go out again (once) and succeed.
        const retry = await h.call(tool, args);
        expect(retry.isError, text(retry)).toBeFalsy();
        expect(['submitted', 'completed']).toContain(structured(retry).status);
      }

      // The server keeps answering other calls.
      const other = await h.call('list_avatars', {});
      expect(other.isError, text(other)).toBeFalsy();
      expect(posts(sim, route)).toBe(fault.post === 'unknown' ? 1 : 2);
    }, timeoutFor(kind));
  });
});

/** Escapes a literal for a RegExp. */
const literal = (v: string) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The status route(s) of each pollable tool, found by following one job of its example on a clean
 * simulator (data-driven: no route table to keep in step with the client). A path segment that is one of
 * the job's remote ids (enterprise reads `/enterprise/status/{id}`) becomes a wildcard.
 */
const statusRoutes = new Map<string, Promise<RegExp>>();
function statusRouteOf(tool: string): Promise<RegExp> {
  let p = statusRoutes.get(tool);
  if (!p) {
    p = cell(async (h, sim) => {
      const r = structured(await h.call(tool, billableExample(tool).args(sim, 0)));
      const ids = new Set(Object.values((r.remote ?? {}) as Record<string, string>));
      sim.log.clear();
      const job = await waitTerminal(h, String(r.handle));
      if (job.status !== 'completed') throw new Error(`${tool}: discovery job ended ${String(job.status)}`);
      const paths = new Set(
        sim.log
          .entries()
          .filter((e) => e.method === 'GET')
          .map((e) =>
            e.path
              .split('/')
              .map((seg) => (ids.has(decodeURIComponent(seg)) ? '[^/]+' : literal(seg)))
              .join('/'),
          ),
      );
      if (paths.size === 0) throw new Error(`${tool}: following a job made no status read`);
      return new RegExp(`^(?:${[...paths].join('|')})$`);
    }, GENEROUS_TIMEOUT_MS);
    statusRoutes.set(tool, p);
  }
  return p;
}

describe.concurrent.each(POLLABLE)('GET faults (first status read): %s', (tool) => {
  it.for(KINDS)('%s', { timeout: CELL_BOUND_MS }, async (kind, { expect }) => {
    const status = await statusRouteOf(tool);
    await cell(async (h, sim) => {
      const ex = billableExample(tool);
      const route = ex.route(sim);
      const r = await h.call(tool, ex.args(sim, 1));
      expect(r.isError, text(r)).toBeFalsy();
      const handle = String(structured(r).handle);
      sim.log.clear();
      sim.faults.add({ method: 'GET', path: status, ...FAULTS[kind].spec, times: 1 });

      const job = await waitTerminal(h, handle);
      expect(job.status, JSON.stringify(job)).toBe('completed');
      expect(job.handle).toBe(handle);
      // The faulted read and at least one more (a held read is logged when the sim stops holding it).
      await vi.waitFor(() => expect(sim.log.count({ method: 'GET', path: status })).toBeGreaterThanOrEqual(2), {
        timeout: 10_000,
        interval: 25,
      });
      // Never a second POST.
      expect(posts(sim, route)).toBe(0);
      const rec = await h.jobs.get(handle);
      expect(rec).toMatchObject({ outcome: 'submitted', status: 'completed', tool });
    }, timeoutFor(kind));
  });
});
