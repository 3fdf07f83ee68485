/**
 * A loopback event receiver for the events tests: verifies every POST with the Standard Webhooks library (as a
 * bot would), records what arrived, and can be told to answer 503 or to stop listening (connections refused).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  type: string;
  body: { type: string; timestamp: string; data: Record<string, unknown> };
  at: number;
}

export interface Receiver {
  url: string;
  secret: string;
  received: Received[];
  /** Requests refused with a bad signature (must stay 0). */
  badSignatures: number;
  /** Most POSTs of one webhook-id in flight at once (must stay 1). */
  maxConcurrentPerId: number;
  mode: 'ok' | '503';
  /** Answer after this many ms (makes overlapping deliveries visible). */
  delayMs: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export const TEST_SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startReceiver(secret = TEST_SECRET): Promise<Receiver> {
  const wh = new Webhook(secret);
  const inflight = new Map<string, number>();
  let server: Server | undefined;
  let port = 0;
  const r: Receiver = {
    url: '',
    secret,
    received: [],
    badSignatures: 0,
    maxConcurrentPerId: 0,
    mode: 'ok',
    delayMs: 0,
    async start() {
      server = createServer(async (req, res) => {
        const body = await readBody(req);
        const id = String(req.headers['webhook-id'] ?? '');
        const n = (inflight.get(id) ?? 0) + 1;
        inflight.set(id, n);
        r.maxConcurrentPerId = Math.max(r.maxConcurrentPerId, n);
        try {
          if (r.delayMs) await new Promise((res2) => setTimeout(res2, r.delayMs));
          if (r.mode === '503') {
            res.writeHead(503).end();
            return;
          }
          let parsed: Received['body'];
          try {
            parsed = wh.verify(body, {
              'webhook-id': id,
              'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
              'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
            }) as Received['body'];
          } catch {
            r.badSignatures++;
            res.writeHead(400).end();
            return;
          }
          r.received.push({ id, type: parsed.type, body: parsed, at: Date.now() });
          res.writeHead(204).end();
        } finally {
          inflight.set(id, (inflight.get(id) ?? 1) - 1);
        }
      });
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
      r.url = `http://127.0.0.1:${port}/events`;
    },
    async stop() {
      const s = server;
      server = undefined;
      if (!s) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    close: () => r.stop(),
  };
  await r.start();
  return r;
}
