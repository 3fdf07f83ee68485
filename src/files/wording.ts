/**
 * What the files feature says to people and models (issue 22, issue 29 item 7): request_upload's refusals and
 * its loopback note, and the answer when the platform could not fetch a file this server staged for it.
 */

/** request_upload where no upload page is served (stdio: no listener). */
export const UPLOAD_NEEDS_HTTP = {
  message: 'request_upload works on a server reached over HTTP: this one is local (stdio), with no upload page.',
  next: 'Name the file by its local path in the media field instead (inside an allowed folder: docs/files.md).',
};

/** request_upload on an HTTP server that could take the file but never hand it to the platform. */
export const UPLOAD_CANNOT_REACH_PLATFORM = {
  message:
    'Uploads are off here: nothing could serve an uploaded file to the platform (this server has no GENPLAT_PUBLIC_URL and no staging bucket).',
  next: 'Give a public https URL in the media field, or ask the operator to set GENPLAT_PUBLIC_URL or GENPLAT_STAGING_BUCKET (docs/files.md).',
};

/** request_upload's `note` when the link names a loopback address. */
export const UPLOAD_LOOPBACK_NOTE =
  'This link opens only on the machine running the server (a loopback address): give it to a person at that machine, or set GENPLAT_PUBLIC_URL.';

/**
 * The platform refused a request whose `field` held a URL this server staged: never "fix the input" (the input
 * was a good file); the platform could not fetch it from us.
 */
export function stagedFetchRefused(field: string, said: string): { message: string; next: string } {
  return {
    message: `The platform could not fetch ${field}, a file this server staged for it; no job was created.${said}`,
    next: 'The platform must reach the staged URL: set GENPLAT_PUBLIC_URL to an https address the platform can reach (docs/files.md), or configure a staging bucket (GENPLAT_STAGING_BUCKET). Then call again.',
  };
}
