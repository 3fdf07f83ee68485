/**
 * stdio `--sandbox` (issue 29 item 7): local files work with no bucket. stdio has no HTTP listener, so the sandbox
 * starts one of its own, on 127.0.0.1 and a free port, that serves exactly `/staged/<id>.<MAC>` (staged-route.ts;
 * everything else is 404). A local file is staged into the sandbox store's blob table by the self stager, and
 * the sandbox's simulator fetches it from this origin only (src/sim/sandbox.ts `allowStagingOrigin`) as the
 * platform would fetch a public URL: the same stager, route, MAC, expiry and deletion as HTTP mode, on loopback.
 * Chosen over reading the bytes in-process so the sandbox rehearses the real path (URL handed out, fetched, the
 * copy deleted once accepted and fetched). Not started with a bucket (the bucket wins, as everywhere).
 * No upload page here: on stdio the person names the file by its path (request_upload is not listed).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.js';
import type { JobStore } from '../jobs/store.js';
import type { Logger } from '../log.js';
import type { SandboxSimulator } from '../sim/sandbox.js';
import type { FileServices } from './file-services.js';
import { fileServices, sweepBlobs } from './http-files.js';
import { stagedRoute } from './staged-route.js';

export interface SandboxStaging {
  files: FileServices;
  /** `http://127.0.0.1:<port>`: where the simulator fetches staged files. */
  origin: string;
  close(): Promise<void>;
}

/** Starts the loopback staging listener; undefined when a bucket is configured or the store keeps no files. */
export async function startSandboxStaging(deps: {
  config: Config;
  jobs: JobStore;
  sim: SandboxSimulator;
  log: Logger;
}): Promise<SandboxStaging | undefined> {
  const { config, jobs, sim, log } = deps;
  const blobs = jobs.blobs?.();
  if (config.files.staging || !blobs) return undefined;
  let consentKey: Promise<Buffer> | undefined;
  const key = () => {
    consentKey ??= jobs.consentKey().catch((err) => {
      consentKey = undefined;
      throw err;
    });
    return consentKey;
  };
  const route = stagedRoute({ blobs, key, log });
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    Promise.resolve(route(req, res, path))
      .then((served) => {
        if (served) return;
        res.writeHead(404, { 'cache-control': 'no-store' });
        res.end();
      })
      .catch((err) => {
        log.warn('the sandbox staging listener failed a request', { error: String(err) });
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sim.allowStagingOrigin(origin);
  const stopSweep = sweepBlobs(blobs, Date.now, log);
  log.info(`SANDBOX: local files are staged at ${origin}/staged/ for the simulator (loopback only; no bucket)`);
  return {
    files: fileServices(config, blobs, key, () => origin, { now: Date.now, loopbackStaging: true }),
    origin,
    close: async () => {
      stopSweep();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
