/**
 * `/metrics` on the HTTP server (docs/operate.md "Metrics"): served only when GENPLAT_METRICS_TOKEN is set (the
 * route is not installed otherwise, so the path is a 404 like any other), and then only to
 * `Authorization: Bearer <that token>`. The token is compared in constant time (over SHA-256 digests, so its
 * length leaks nothing either) and never logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExtraRoute } from '../transports/http.js';

export const METRICS_PATH = '/metrics';

const digest = (s: string) => createHash('sha256').update(s).digest();

export function metricsRoute(token: string, scrape: (req: IncomingMessage, res: ServerResponse) => void): ExtraRoute {
  const expected = digest(token);
  return (req, res, path) => {
    if (path !== METRICS_PATH) return false;
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    if (!m || !timingSafeEqual(digest(m[1]!), expected)) {
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer' });
      res.end('401: /metrics needs Authorization: Bearer <GENPLAT_METRICS_TOKEN>\n');
      return true;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' });
      res.end();
      return true;
    }
    scrape(req, res);
    return true;
  };
}
