/**
 * Review 7: an approval rule on the requester's day spend (`when.day_spend_at_least`) counts the person, not the
 * id. Uma spends 350 as `token:uma`, then asks for 350 more as `token:uma2`, which the people file says is her
 * (`also`): her day spend after this call is 700, over the rule's 500, so the call is held for the lead — not sent
 * unapproved because the alias's own spend today is 350. Real HTTP runtime, its store and the simulator.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withApprovalPolicy } from '../../src/approvals/load-policy.js';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { connectClient, sc, type TestClient, text } from '../http/helpers.js';

const TOKENS = { uma: 'uma-0123456789abcdef', uma2: 'uma2-0123456789abcdef', lead: 'lead-0123456789abcdef' };
let sim: Simulator;
let rt: HttpRuntime;
let dir: string;
const clients: Record<keyof typeof TOKENS, TestClient> = {} as never;
const posts = () => sim.log.entries().filter((e) => e.method === 'POST').length;

/** A shoppable video: 350 credits, bounded. */
const BIG = (n: number) => ({
  category: 'gadgets',
  format: 'unboxing',
  image_urls: ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png'],
  context: `desk setup, alias take ${n}`,
});

beforeAll(async () => {
  sim = await startSimulator({ timing: 'test' });
  setTrustedMediaOrigins([sim.origin]);
  dir = await mkdtemp(join(tmpdir(), 'genplat-r7-dayspend-'));
  const write = async (name: string, body: string) => {
    await writeFile(join(dir, name), body);
    return join(dir, name);
  };
  const base = loadConfig(parseCli(['--http', '--port', '0']), {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: join(dir, 'state'),
    GENPLAT_HTTP_TOKEN: Object.entries(TOKENS)
      .map(([n, t]) => `${n}=${t}`)
      .join(','),
    GENPLAT_APPROVALS: await write(
      'approvals.json',
      JSON.stringify({ rules: [{ when: { day_spend_at_least: 500 }, approvers: ['token:lead'] }] }),
    ),
    GENPLAT_PEOPLE: await write('people.yaml', 'token:uma: { name: Uma, also: [token:uma2] }\n'),
    GENPLAT_MAX_CREDITS_PER_DAY: '100000',
  });
  const config: Config = await withApprovalPolicy({
    ...base,
    vendors: sim.vendors,
    logLevel: 'error',
    confirm: { mode: 'never' },
  });
  rt = await startHttpRuntime(
    config,
    createLogger('error', () => {}),
    { pollIntervalMs: 20 },
  );
  for (const [name, token] of Object.entries(TOKENS))
    clients[name as keyof typeof TOKENS] = await connectClient(rt.http.url, token);
});

afterAll(async () => {
  for (const c of Object.values(clients)) await c?.close().catch(() => {});
  await rt?.close();
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("an approval rule on the requester's day spend", () => {
  it("counts all of the person's ids: the alias's call that takes her past it is held, not sent", async () => {
    const first = await clients.uma.call('create_shoppable_video', BIG(1));
    expect(first.isError, text(first)).toBeFalsy();
    expect(sc(first).status, text(first)).not.toBe('approval_required');
    expect(posts()).toBe(1);
    const second = await clients.uma2.call('create_shoppable_video', BIG(2));
    expect(second.isError, text(second)).toBeFalsy();
    expect(sc(second).status, text(second)).toBe('approval_required');
    expect(posts()).toBe(1);
  });
});
