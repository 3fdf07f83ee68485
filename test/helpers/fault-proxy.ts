/**
 * A TCP fault proxy for tests (issue 19): sits in front of a real server (PostgreSQL, the simulator) on
 * loopback and can, at any moment, `refuse` (drop every connection and refuse new ones), `hold` (accept new
 * connections but forward nothing, like a black hole), `freeze` (keep connections open and stop forwarding in
 * both directions), `mute` (forward what the client sends, drop every answer: a COMMIT that lands and whose answer
 * is lost), or `pass` again. Real sockets, real protocol bytes: never a mock of the server.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'refuse' | 'hold' | 'freeze' | 'mute';

export interface FaultProxy {
  /** 127.0.0.1 port the proxy listens on. */
  port: number;
  mode: ProxyMode;
  set(mode: ProxyMode): void;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string;
  close(): Promise<void>;
}

export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let mode: ProxyMode = 'pass';
  let accepted = 0;
  const server: Server = createServer((client) => {
    accepted++;
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    client.pause();
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    // Forward only in `pass`; otherwise bytes wait in the paused sockets (hold/freeze) until `pass` again.
    client.on('data', (b) => upstream.write(b));
    upstream.on('data', (b) => {
      if (mode !== 'mute') client.write(b);
    });
    upstream.on('connect', () => {
      if (mode === 'pass' || mode === 'mute') client.resume();
      else upstream.pause();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const proxy: FaultProxy = {
    port,
    get mode() {
      return mode;
    },
    set mode(m) {
      proxy.set(m);
    },
    get accepted() {
      return accepted;
    },
    set(m) {
      mode = m;
      for (const { client, upstream } of pairs) {
        if (m === 'refuse') {
          client.destroy();
          upstream.destroy();
        } else if (m === 'pass' || m === 'mute') {
          client.resume();
          upstream.resume();
        } else {
          client.pause();
          upstream.pause();
        }
      }
    },
    through(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async close() {
      proxy.set('refuse');
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return proxy;
}
