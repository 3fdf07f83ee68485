/**
 * Event delivery figures (issue 29), on loopback with the production worker's pace (500 ms rounds):
 * - lag: from the event's write (the store transition) to its arrival at a receiver that verifies the Standard
 *   Webhooks signature, p50 / p95 over `N` job completions written one every 50 ms;
 * - outage: the receiver answers 503 for `OUTAGE_S` seconds while events keep coming, then recovers: how long after
 *   it is back until everything written during the outage has arrived (none lost, same webhook-ids).
 * Prints figures; asserts nothing (tests never time things).
 *
 *   npm run build && node dist/scripts/measure-events.js [N] [OUTAGE_S]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { startEventWorker } from '../src/events/worker.js';
import { estimate } from '../src/jobs/envelope.js';
import { silentLogger } from '../src/log.js';
import { openSqliteStore } from '../src/store/sqlite.js';
import type { Store } from '../src/store/types.js';

const N = Number(process.argv[2] ?? 200);
const OUTAGE_S = Number(process.argv[3] ?? 20);
const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

async function completeOne(s: Store, i: number): Promise<void> {
  const r = await s.admit(
    {
      tool: 'create_talking_video',
      kind: 'actor_video',
      fingerprint: `bench-${i}-${Math.random()}`,
      summary: 'bench',
      estimate: estimate(1, 'fixed price'),
      consent: 'policy',
      owner: 'token:bench',
    },
    { maxCreditsPerCall: 1e9, maxCreditsPerDay: 1e9, dayStart: new Date(0) },
    () => undefined,
  );
  if (!r.admitted) throw new Error('not admitted');
  await s.settle(r.record.id, { outcome: 'submitted', handle: `actor_video:p:bench${i}`, status: 'processing' });
  await s.observe(r.record.id, { status: 'completed', creditsCharged: 1 });
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'genplat-measure-events-'));
  const store = await openSqliteStore(dir);
  const wh = new Webhook(SECRET);
  const arrived = new Map<string, number>();
  let down = false;
  let bad = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (down) return void res.writeHead(503).end();
      try {
        wh.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>);
      } catch {
        bad++;
        return void res.writeHead(400).end();
      }
      const id = String(req.headers['webhook-id']);
      if (!arrived.has(id)) arrived.set(id, Date.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  const worker = startEventWorker({
    store,
    endpoints: [{ url, secret: SECRET }],
    log: silentLogger,
    retryForMs: 3 * 24 * 3_600_000,
  });
  try {
    for (let i = 0; i < N; i++) {
      await completeOne(store, i);
      await sleep(50);
    }
    const all = () => store.events(0, 1_000_000);
    for (let t = 0; t < 600 && arrived.size < (await all()).length; t++) await sleep(100);
    const events = await all();
    const lags = events.filter((e) => arrived.has(e.id)).map((e) => arrived.get(e.id)! - e.at);
    console.log(
      `events written: ${events.length} (${N} jobs × submitted + completed), delivered: ${arrived.size}, bad signatures: ${bad}`,
    );
    console.log(
      `delivery lag on loopback: p50 ${pct(lags, 50)} ms, p95 ${pct(lags, 95)} ms, max ${Math.max(...lags)} ms`,
    );

    down = true;
    const before = new Set((await all()).map((e) => e.id));
    const outageEnd = Date.now() + OUTAGE_S * 1000;
    let i = N;
    while (Date.now() < outageEnd) {
      await completeOne(store, i++);
      await sleep(500);
    }
    down = false;
    const back = Date.now();
    const during = (await all()).filter((e) => !before.has(e.id));
    for (let t = 0; t < 1200 && during.some((e) => !arrived.has(e.id)); t++) await sleep(100);
    const lost = during.filter((e) => !arrived.has(e.id)).length;
    const last = Math.max(...during.map((e) => arrived.get(e.id) ?? Number.NaN));
    console.log(
      `receiver down ${OUTAGE_S} s (503) while ${during.length} events were written: all delivered ${((last - back) / 1000).toFixed(1)} s after it came back; lost: ${lost}`,
    );
  } finally {
    await worker.close();
    server.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
