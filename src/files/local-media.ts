/**
 * Local files in a built platform request (issue 22 items 1-2). `request()` copies each media field's value
 * into the body as given; here, before pricing and consent, every local reference in a media field is checked
 * (confine.ts, or the upload source) and hashed, and replaced by a placeholder that names its content:
 * `local:<sha256>/<file name>`. So the fingerprint — what consent binds — covers each file's bytes, never a
 * staging URL that changes per call. After admission, staging.ts swaps each placeholder for its staged URL.
 */
import type { Json } from '../client/types.js';
import type { PlatformRequest } from '../define-tool.js';
import { UserInputError } from '../errors.js';
import { checkLocalFile } from './confine.js';
import { localRefFormProblem, type MediaKind, mediaKindOfField, parseMediaRef } from './media-ref.js';
import type { UploadedFile, UploadSource } from './upload-source.js';

/** One resolved local reference: a checked file on disk, or a person's upload. */
export type ResolvedMedia =
  | {
      source: 'path';
      field: string;
      path: string;
      filename: string;
      size: number;
      contentType: string;
      sha256: string;
      /** `<dev>:<ino>` of the file the quote checked (optional only for records older than this field). */
      fileId?: string;
    }
  | ({ source: 'upload'; field: string; id: string } & Omit<UploadedFile, 'open'> & { upload: UploadedFile });

export interface FilesDeps {
  /** The allowed folders: the client's MCP roots (stdio), else GENPLAT_INPUT_DIRS. */
  roots(): Promise<string[]>;
  uploads: UploadSource;
  /** Whether staged URLs can be made (a bucket, or the self stager); without, a local reference is refused unsent. */
  stagingConfigured: boolean;
}

export interface LocalMediaRequest {
  request: PlatformRequest;
  /** Placeholder → what it names; empty when the request has no local reference. */
  files: Map<string, ResolvedMedia>;
}

export const PLACEHOLDER_PREFIX = 'local:';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array);

/**
 * Replaces local references in `request`'s media fields by content placeholders.
 * @throws UserInputError naming the field: a rule of confinement, an unknown upload, a local file in a field
 * whose media kind is unknown, or no staging configured. Nothing has been sent or staged.
 */
export async function resolveLocalMedia(
  request: PlatformRequest,
  deps: FilesDeps,
  owner: string | undefined,
): Promise<LocalMediaRequest> {
  const files = new Map<string, ResolvedMedia>();
  let roots: string[] | undefined;
  const resolveOne = async (field: string, key: string, value: string): Promise<string> => {
    const ref = parseMediaRef(value);
    if (ref.type === 'url') return value;
    const kind: MediaKind | undefined = mediaKindOfField(key);
    // Only strings in media fields are references; any other text (a script) is left alone.
    if (!kind) return value;
    const problem = localRefFormProblem(ref);
    if (problem) throw new UserInputError(field, problem);
    if (!deps.stagingConfigured) {
      throw new UserInputError(
        field,
        'a local file needs a place the platform can fetch it from: set GENPLAT_STAGING_BUCKET, or GENPLAT_PUBLIC_URL in HTTP mode (docs/files.md), or give a public URL',
      );
    }
    let resolved: ResolvedMedia;
    if (ref.type === 'upload') {
      const up = await deps.uploads.open(ref.id, owner);
      if (!up) throw new UserInputError(field, 'unknown upload reference');
      if (!up.contentType.startsWith(`${kind}/`)) throw new UserInputError(field, `upload is not ${kind}`);
      const { open: _open, ...facts } = up;
      resolved = { source: 'upload', field, id: ref.id, ...facts, upload: up };
    } else {
      // Over HTTP the caller is remote: the server's disk is not theirs, and reading it for them would let any
      // caller stage this machine's files (the custom-avatar rule, tools/avatar/create-custom-avatar.ts).
      if (owner !== undefined) {
        throw new UserInputError(
          field,
          'local file paths are accepted only on a local (stdio) server; give a public URL or upload:<id>',
        );
      }
      roots ??= await deps.roots();
      const f = await checkLocalFile(field, ref.path, kind, roots);
      resolved = { source: 'path', field, ...f };
    }
    const placeholder = `${PLACEHOLDER_PREFIX}${resolved.sha256}/${resolved.filename}`;
    files.set(placeholder, resolved);
    return placeholder;
  };

  const walk = async (value: unknown, field: string, key: string): Promise<unknown> => {
    if (typeof value === 'string') return resolveOne(field, key, value);
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const [i, v] of value.entries()) out.push(await walk(v, `${field}[${i}]`, key));
      return out;
    }
    if (isRecord(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = await walk(v, field ? `${field}.${k}` : k, k);
      return out;
    }
    return value;
  };

  // Multipart bodies (custom avatar) carry files as bytes already (tools/_shared/media-file.ts): left as built.
  if (!isRecord(request.body)) return { request, files };
  const body = (await walk(request.body, '', '')) as Json;
  return files.size === 0 ? { request, files } : { request: { route: request.route, body }, files };
}
