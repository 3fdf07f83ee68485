/**
 * The local-file dependencies of a paid call, from the config: allowed folders (GENPLAT_INPUT_DIRS unless the
 * client's MCP roots are passed in), the upload source (HTTP: the shared store's uploads) and one stager per
 * staging setting,
 * kept for the process so the SDK client and its connections are reused.
 */
import type { Config } from '../config.js';
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
