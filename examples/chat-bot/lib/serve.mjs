/**
 * The bot's HTTP endpoints (node:http): `POST /slack/events` (Slack's Events API and interactivity: point both
 * Request URLs of the Slack app here) and `POST /genplat/events` (genplat's signed events: the server's
 * GENPLAT_EVENTS_URL). Bodies are read raw: both signatures are over the exact bytes.
 */
import { createServer } from 'node:http';

const MAX_BODY = 1 << 20;

export async function serve(bot, { port = 3000, host = '127.0.0.1' } = {}) {
  const server = createServer(async (req, res) => {
    try {
      const chunks = [];
      let size = 0;
      for await (const c of req) {
        size += c.length;
        if (size > MAX_BODY) return void res.writeHead(413).end('too large');
        chunks.push(c);
      }
      const raw = Buffer.concat(chunks);
      const path = new URL(req.url, 'http://x').pathname;
      if (req.method === 'POST' && path === '/slack/events') {
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
        const r = await bot.slackWebhook(
          new Request(`http://${req.headers.host ?? host}${req.url}`, { method: 'POST', headers, body: raw }),
        );
        res.writeHead(r.status, Object.fromEntries(r.headers)).end(Buffer.from(await r.arrayBuffer()));
        return;
      }
      if (req.method === 'POST' && path === '/genplat/events') {
        const r = await bot.eventsWebhook(req.headers, raw.toString('utf8'));
        res.writeHead(r.status, { 'content-type': 'text/plain' }).end(r.body);
        return;
      }
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    } catch (err) {
      process.stderr.write(`[chat-bot] request failed: ${err?.stack ?? err}\n`);
      if (!res.headersSent) res.writeHead(500).end('error');
    }
  });
  await new Promise((r) => server.listen(port, host, r));
  const origin = `http://${host}:${server.address().port}`;
  return { server, origin, close: () => new Promise((r) => server.close(r)) };
}
