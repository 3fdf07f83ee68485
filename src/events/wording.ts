/** Every sentence the events feature says (config refusals, the CLI, doctor). */

export const eventsWords = {
  urlNotUrl: (field: string) => `${field} is not a valid URL`,
  urlScheme: (field: string) =>
    `${field} must be an https URL (plain http only to a loopback address: 127.0.0.1, ::1 or localhost)`,
  urlCredentials: (field: string) =>
    `${field} must not carry a user name or password; put the secret in the secret field`,
  secretFormat: (field: string) =>
    `${field} must be a Standard Webhooks secret: "whsec_" followed by base64 of 24 to 64 random bytes (e.g. node -e "console.log('whsec_'+require('node:crypto').randomBytes(32).toString('base64'))")`,
  secretPublic: (field: string) =>
    `${field} is a secret printed in public documentation: anyone can sign with it. Generate your own (node -e "console.log('whsec_'+require('node:crypto').randomBytes(32).toString('base64'))")`,
  urlInBoth:
    'GENPLAT_EVENTS_URL is also an entry of GENPLAT_EVENTS_ENDPOINTS: list each endpoint URL once (one secret and one filter per URL)',
  urlWithoutSecret:
    'GENPLAT_EVENTS_URL needs GENPLAT_EVENTS_SECRET (and GENPLAT_EVENTS_SECRET needs GENPLAT_EVENTS_URL)',
  fileUnreadable: (path: string, code: string) => `GENPLAT_EVENTS_ENDPOINTS: cannot read the file "${path}" (${code})`,
  fileInvalid: (path: string, kind: string, why: string) =>
    `GENPLAT_EVENTS_ENDPOINTS: "${path}" is not valid ${kind} (${why})`,
  fileShape: 'GENPLAT_EVENTS_ENDPOINTS: must be a list of endpoints [{url, secret, callers?, types?}]',
  entryShape: (i: number) =>
    `GENPLAT_EVENTS_ENDPOINTS: entry ${i + 1}: must be a mapping {url, secret, callers?, types?}`,
  entryUnknownField: (i: number, key: string) =>
    `GENPLAT_EVENTS_ENDPOINTS: entry ${i + 1}: unknown field "${key}" (url, secret, callers, types)`,
  entryList: (i: number, field: string) =>
    `GENPLAT_EVENTS_ENDPOINTS: entry ${i + 1}: ${field} must be a list of strings`,
  entryType: (i: number, t: string, known: readonly string[]) =>
    `GENPLAT_EVENTS_ENDPOINTS: entry ${i + 1}: types: "${t}" is not an event type (${known.join(', ')})`,
  entryDuplicate: (i: number) => `GENPLAT_EVENTS_ENDPOINTS: entry ${i + 1}: url is listed twice`,
  entryField: (i: number, field: string) => `GENPLAT_EVENTS_ENDPOINTS entry ${i + 1} ${field}`,
  /** doctor */
  doctorOff: 'events: off (GENPLAT_EVENTS_URL or GENPLAT_EVENTS_ENDPOINTS not set)',
  doctorEndpoint: (
    url: string,
    due: number,
    delivered: number,
    dead: number,
    oldest: string | undefined,
    last: string | undefined,
  ) =>
    `events → ${url}: ${delivered} delivered, ${due} waiting${oldest ? ` (oldest since ${oldest})` : ''}, ${dead} given up${last ? `; last error: ${last}` : ''}`,
  doctorNoDeliveries: (n: number) => `events: ${n} endpoint(s) configured, nothing delivered yet`,
  /** The CLI */
  logEmpty: 'No delivery attempts recorded.',
  logHeader: 'time\tevent\ttype\tendpoint\tstatus\tms\terror',
  cliUsage: 'usage: genplat-mcp events log [--sandbox]',
  cliNoStore: (path: string) => `No job store at ${path}: nothing has been delivered from this state dir.`,
  /** The worker's log lines */
  deliveryFailed: 'event delivery failed; retrying',
  deliveryGaveUp: 'event delivery given up after GENPLAT_EVENTS_RETRY_FOR',
  skippedNow: 'not sent: the endpoint no longer takes this event (its callers or types changed)',
  workerFailed: 'event delivery worker: a round failed; trying again',
} as const;
