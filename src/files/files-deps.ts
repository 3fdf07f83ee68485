/**
 * The local-file dependencies of a paid call, from the config: allowed folders (GENPLAT_INPUT_DIRS unless the
 * client's MCP roots are passed in), the upload source (HTTP: the shared store's uploads) and one stager per
 * staging setting,
 * kept for the process so the SDK client and its connections are reused.
 */
import type { Config } from '../config.js';
import type { JobRecord } from '../jobs/store.js';
import type { Logger } from '../log.js';
import type { FilesDeps } from './local-media.js';
import { type Stager, s3Stager } from './stage-s3.js';
import { NO_UPLOADS, type UploadSource } from './upload-source.js';

const stagers = new Map<string, Stager>();

/**
 * The stager for this config, made on first use (its leftovers swept then). A configured bucket wins; else the
 * self stager HTTP mode passes in (GENPLAT_PUBLIC_URL); else undefined (local references are refused unsent).
 */
export function stagerFor(config: Config, selfStager?: Stager): Stager | undefined {
  const s = config.files.staging;
  if (!s) return selfStager;
  const id = JSON.stringify(s);
  let stager = stagers.get(id);
  if (!stager) {
    stager = s3Stager(s);
    stagers.set(id, stager);
    // Objects past their lifetime left by a process that stopped before its deletion timers: in the background,
    // once per process; a failure here only delays that clean-up to the bucket's lifecycle rule.
    stager.sweep(Date.now()).catch(() => undefined);
  }
  return stager;
}

export function filesDeps(
  config: Config,
  opts: {
    roots?: (() => Promise<string[] | undefined>) | undefined;
    uploads?: UploadSource | undefined;
    selfStager?: Stager | undefined;
  } = {},
): FilesDeps {
  return {
    // Declared roots win; a client that declares none (or cannot) falls back to the operator's folders.
    roots: async () => {
      const declared = await opts.roots?.().catch(() => undefined);
      return declared && declared.length > 0 ? declared : config.files.inputDirs;
    },
    uploads: opts.uploads ?? NO_UPLOADS,
    stagingConfigured: config.files.staging !== undefined || opts.selfStager !== undefined,
  };
}

/**
 * What the poller calls when a job becomes final (`PollerOptions.onFinal`): its staged objects are deleted now,
 * not at the end of their lifetime (issue 27 item 7). They sit under the job's ledger id in the bucket, so any
 * process that sees the end finds them, a restarted one too. Undefined without a bucket (the self stager deletes
 * on the platform's fetch). One LIST per final job on the bucket's prefix.
 */
export function finalJobCleanup(config: Config, log: Logger): ((rec: JobRecord) => void) | undefined {
  if (!config.files.staging) return undefined;
  return (rec) => {
    const stager = stagerFor(config);
    stager
      ?.removeGroup?.(rec.id)
      .then((n) => n > 0 && log.info('staged files of a finished job deleted', { ledger: rec.id, count: n }))
      .catch((err) =>
        log.warn('staged files of a finished job could not be deleted; their lifetime ends them', {
          ledger: rec.id,
          error: String(err),
        }),
      );
  };
}
