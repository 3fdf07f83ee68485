#!/usr/bin/env node
/**
 * Test-only reverse proxy for the conformance run: the suite (0.1.16) cannot send an Authorization header,
 * so this adds `Authorization: Bearer $GENPLAT_HTTP_TOKEN` to every request and forwards it unchanged
 * otherwise — Host and Origin included, so the server's own DNS-rebinding checks are what the suite tests.
 * The server keeps its authentication on; nothing in the product has a "no auth" switch.
 *
 *   node scripts/ci/auth-proxy.mjs http://127.0.0.1:PORT   → prints its own origin on stdout, then proxies
 */
import { createServer, request } from 'node:http';

const target = new URL(process.argv[2] ?? '');
const token = process.env.GENPLAT_HTTP_TOKEN;
if (!token) {
  console.error('auth-proxy: GENPLAT_HTTP_TOKEN is not set');
  process.exit(2);
}

const server = createServer((req, res) => {
  const upstream = request(
    {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, authorization: `Bearer ${token}` },
    },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on('error', (err) => {
    if (!res.headersSent) res.writeHead(502);
    res.end(String(err));
  });
  req.pipe(upstream);
  res.on('close', () => upstream.destroy());
});
server.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${server.address().port}`);
});
