/** Shared fixture for client unit tests: a MockAgent with net connect disabled, and a PlatformHttp on it. */
import { MockAgent } from 'undici';
import { PlatformHttp, type PlatformHttpOptions } from '../../../src/client/http.js';
import { createLogger } from '../../../src/log.js';

/** Recognisable, so a leak anywhere is obvious. */
export const KEY = 'sk-test-CANARY-1234567890';
export const ORIGIN = 'http://platform.test';
export const BASE = `${ORIGIN}/api`;

export function mockPlatform(overrides: Partial<PlatformHttpOptions> = {}) {
  const agent = new MockAgent({ enableCallHistory: true });
  // An unmocked request fails the test instead of reaching the network.
  agent.disableNetConnect();
  const pool = agent.get(ORIGIN);
  const lines: string[] = [];
  const sleeps: number[] = [];
  const http = new PlatformHttp({
    baseUrl: BASE,
    apiKey: KEY,
    dispatcher: agent,
    logger: createLogger('debug', (l) => lines.push(l)),
    random: () => 0.5,
    // Backoff is observed, never waited for.
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    timeoutMs: 2_000,
    ...overrides,
  });
  const calls = () => agent.getCallHistory()?.calls() ?? [];
  return { agent, pool, http, lines, sleeps, calls };
}

export const json = { 'content-type': 'application/json' };
export const ok = (data: unknown) => ({ status: true, message: 'ok', data });
/** Interceptor path matcher that ignores the query string. */
export const at = (path: string) => (p: string) => p.split('?')[0] === `/api${path}`;

/** Whatever the caught value is, as text that would reveal a leaked key. */
export function everythingAbout(err: unknown): string {
  const e = err as Error & { nextStep?: string; cause?: unknown };
  return [String(e), e.message, e.nextStep, e.stack, JSON.stringify(e), e.cause ? everythingAbout(e.cause) : ''].join(
    '\n',
  );
}
