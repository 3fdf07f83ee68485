/** Shared setup for client integration tests: a simulator on loopback and the real client against it. */

import type { PlatformHttpOptions } from '../../src/client/http.js';
import { createPlatformClient, type PlatformClientHandle } from '../../src/client/index.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';

/** Recognisable, so a leak anywhere is obvious. */
export const CANARY_KEY = 'sk-test-CANARY-1234567890';

export interface Rig {
  sim: Simulator;
  client: PlatformClientHandle;
  lines: string[];
  /** Another client on the same simulator (other key, other options). */
  clientWith(o: Partial<PlatformHttpOptions>): PlatformClientHandle;
  close(): Promise<void>;
}

export async function startRig(o: Partial<PlatformHttpOptions> = {}): Promise<Rig> {
  const sim = await startSimulator({ timing: 'test', apiKey: CANARY_KEY });
  const lines: string[] = [];
  const extra: PlatformClientHandle[] = [];
  const make = (over: Partial<PlatformHttpOptions>) =>
    createPlatformClient({
      baseUrl: sim.baseUrl,
      apiKey: sim.apiKey,
      vendors: sim.vendors,
      logger: createLogger('debug', (l) => lines.push(l)),
      // No real backoff waits: the jitter draws 0 ms (delays are asserted in the unit tests).
      random: () => 0,
      ...o,
      ...over,
    });
  const client = make({});
  return {
    sim,
    client,
    lines,
    clientWith(over) {
      const c = make(over);
      extra.push(c);
      return c;
    },
    async close() {
      await Promise.all([client, ...extra].map((c) => c.close()));
      await sim.close();
    },
  };
}

/** Polls a status read until `done` says so; the simulator's 'test' jobs finish in ~20 ms. */
export async function pollUntil<T>(
  read: () => Promise<{ data: T }>,
  done: (d: T) => boolean,
  maxReads = 100,
): Promise<T> {
  for (let i = 0; i < maxReads; i++) {
    const { data } = await read();
    if (done(data)) return data;
    await new Promise((r) => setTimeout(r, 15));
  }
  throw new Error('job did not finish in time');
}

export async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

/** Whatever the caught value is, as text that would reveal a leaked key. */
export function everythingAbout(err: unknown): string {
  const e = err as Error & { nextStep?: string; cause?: unknown };
  return [String(e), e.message, e.nextStep, e.stack, JSON.stringify(e), e.cause ? everythingAbout(e.cause) : ''].join(
    '\n',
  );
}

export const PUBLIC_IMAGE = 'https://cdn.example.com/product.png';
