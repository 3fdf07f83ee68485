/**
 * Configuration: one zod schema over env vars and command-line flags.
 * This is the only module that reads `process.env` (callers pass it in, so tests never touch the real one).
 */
import { readFileSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { domainToASCII } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { ApprovalPolicy } from './approvals/policy-schema.js';
import type { DelegationConfig } from './auth/delegation.js';
import { parseDelegating, parseSlackAuth } from './auth/identity-config.js';
import { type OAuthConfig, parseHttpTokens, parseOAuthConfig } from './auth/oauth-config.js';
import type { Access } from './auth/scopes.js';
import type { SlackAuthConfig } from './auth/slack-auth.js';
import { parseTokenScopes } from './auth/token-scopes.js';
import { closest } from './did-you-mean.js';
import { ConfigurationError } from './errors.js';
import { type EventsConfig, loadEventsConfig } from './events/config.js';
import { DEFAULT_UPLOAD_LIMITS, type UploadLimits } from './files/limits.js';
import { HOSTS, type HostId } from './install/hosts.js';
import { APPROVAL_STEPS, CAMPAIGN_STEPS, EVENT_STEPS, PAID_STEPS, type PaidStep, SPOOL_STEPS } from './kill-steps.js';
import { telemetryNodeProblem } from './node-version.js';
import { type BudgetsFile, budgetConflicts, loadBudgetsFile } from './paid/budgets-file.js';
import { loadPeopleFile, NO_PEOPLE, type PeopleDirectory } from './people/people-file.js';
import { budgetsOnAliases } from './people/same-person.js';
import { parseReportReaders, type ReportReaders } from './report/readers.js';
import { type Problem, parseSelection, type ReportSelection } from './report/selection.js';
import { type DbTimeouts, DEFAULT_DB_TIMEOUTS } from './store/db-timeouts.js';
import { type MetricsConfig, parseMetricsConfig } from './telemetry/metrics-config.js';
import { type TracesSettings, tracesSettings } from './telemetry/traces-settings.js';

export const TOOLSETS = [
  'catalog',
  'video',
  'avatar',
  'product',
  'ads',
  'library',
  'gestures',
  'enterprise',
  'upscale',
  'jobs',
  // decide_approval (issue 28): shown only with GENPLAT_APPROVALS, never in read-only mode (tool-visibility.ts).
  'approvals',
] as const;
export type Toolset = (typeof TOOLSETS)[number];

export const VENDOR_LETTERS = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M'] as const;
export type VendorLetter = (typeof VENDOR_LETTERS)[number];
export type VendorMap = Partial<Record<VendorLetter, string>>;

/**
 * Vendor names believed right from public material (design.md section 3). Every one is an assumption:
 * the README marks them "assumed" and GENPLAT_VENDORS overrides each letter.
 */
export const ASSUMED_VENDORS: VendorMap = {
  A: 'wan',
  C: 'seedance',
  D: 'grok',
  F: 'veo',
  G: 'gpt',
  I: 'nano-banana',
  K: 'ideogram',
};

/** In the sandbox every letter must resolve, so unknown letters get a recognisable placeholder. */
export function sandboxVendors(overrides: VendorMap): VendorMap {
  const filled: VendorMap = { ...ASSUMED_VENDORS };
  for (const letter of VENDOR_LETTERS) filled[letter] ??= `vendor${letter.toLowerCase()}`;
  return { ...filled, ...overrides };
}

/** Streamable HTTP mode (`--http`); see src/transports/http.ts for how each limit is enforced. */
export interface HttpConfig {
  host: string;
  port: number;
  /** The first of `tokens` (kept for callers that predate several tokens). */
  token: string | undefined;
  /** Static bearer tokens, one per caller; each caller's jobs and confirmation tokens are bound to its token. */
  tokens: string[];
  /**
   * Named static tokens (`GENPLAT_HTTP_TOKEN="bot=<token>"`): name → token, owner id `token:<name>`. A token in
   * `tokens` without a name keeps 0.1's owner id (src/auth/identity.ts).
   */
  tokenNames?: Record<string, string>;
  /** `GENPLAT_HTTP_TOKEN_SCOPES`: name → read|quote|spend; a named token not listed, and every unnamed one, spends. */
  tokenScopes?: Record<string, Access>;
  /** Browser origins allowed (lower-cased `scheme://host[:port]`); a request with any other Origin gets 403. */
  allowedOrigins: string[];
  /** Extra Host header names accepted besides the bound host and loopback names (a reverse proxy's name). */
  allowedHosts: string[];
  /**
   * Requests being answered at once, all callers together (HTTP is stateless: no sessions are kept; what holds
   * memory is a request in flight, such as a 50 s wait_for_jobs).
   */
  maxInFlight: number;
  /**
   * Requests in flight per caller (token). Undefined = an even share of `maxInFlight` (rounded down, at least 1),
   * so every caller always gets its share however busy the others are.
   */
  maxInFlightPerCaller?: number | undefined;
  /** Requests per minute per token. */
  rateLimitPerMin: number;
}

export type ConfirmPolicy = { mode: 'always' } | { mode: 'above'; credits: number } | { mode: 'never' };

export interface Config {
  /** Undefined only in sandbox mode before the simulator has started (the entry fills it in). */
  apiKey: string | undefined;
  baseUrl: string | undefined;
  sandbox: boolean;
  vendors: VendorMap;
  confirm: ConfirmPolicy;
  /** Hard ceilings in displayed credits; refused whatever the consent. */
  maxCreditsPerCall: number;
  maxCreditsPerDay: number;
  /**
   * `GENPLAT_USER_MAX_CREDITS_PER_DAY`: each caller's own per-day ceiling (HTTP callers; stdio has one user and
   * only the account's). Undefined = no per-user limit. Enforced inside `store.admit` with the account's.
   */
  userMaxCreditsPerDay?: number | undefined;
  /** `GENPLAT_USER_BUDGETS`: per-caller overrides `{"<owner id>": credits}` of `userMaxCreditsPerDay`. */
  userBudgets: Record<string, number>;
  /** `GENPLAT_MAX_CREDITS_PER_WEEK` / `_MONTH`: the account's ceilings per ISO week / month (UTC); undefined = none. */
  maxCreditsPerWeek?: number | undefined;
  maxCreditsPerMonth?: number | undefined;
  /** `GENPLAT_BUDGETS`: per-person defaults and overrides and per-team limits by period (src/paid/budgets-file.ts). */
  budgets?: BudgetsFile | undefined;
  /** The budgets file's path, for doctor. */
  budgetsFile?: string | undefined;
  /**
   * Operator price table (GENPLAT_PRICE_TABLE): displayed credits per call, used as the quote where nothing
   * the platform publishes bounds the price. Keys: `<tool>`, `run_model:<model id>`, `<tool>:<model>` etc.
   */
  priceTable: Record<string, number>;
  /**
   * `GENPLAT_APPROVALS`: the approval policy file (absolute path; docs/approvals.md). Read and validated at
   * start-up and by doctor (src/approvals/load-policy.ts), not here: YAML needs an async import.
   */
  approvalsFile?: string | undefined;
  /** The policy read from `approvalsFile` at start-up (`withApprovalPolicy`); undefined = no call needs approval. */
  approvals?: ApprovalPolicy | undefined;
  stateDir: string;
  /**
   * `<state dir>/sandbox`: the sandbox's job store (it is `stateDir` in sandbox mode) and the simulator's saved
   * state (`simulator.db` for `--sandbox`, `sim-cli.db` for `genplat-mcp sim`; src/sim/persist.ts).
   */
  sandboxDir: string;
  /** `--reset-sandbox`: start the sandbox empty (its simulator state and its job store). */
  resetSandbox: boolean;
  /**
   * `GENPLAT_DATABASE_URL`: the PostgreSQL store shared by a fleet of instances (src/store/postgres.ts);
   * undefined = SQLite in the state dir. Holds a password: never log or quote it.
   */
  databaseUrl?: string | undefined;
  /** Bounded waits on the PostgreSQL store (src/store/db-timeouts.ts); GENPLAT_DB_*_MS. */
  dbTimeouts: DbTimeouts;
  toolsets: Toolset[];
  readOnly: boolean;
  /** Lower-cased host names an agent may name in `webhook_url`. */
  webhookAllowlist: string[];
  /** Elicitation: `auto` asks clients that declare it (minus the skip list), `off` always uses tokens. */
  elicitation: 'auto' | 'off';
  /** Client names (initialize clientInfo.name) that declare elicitation but never render it. */
  elicitationSkipClients: string[];
  /** Must stay below the host's ~60 s tool timeout so a silent form falls back to a token in time. */
  elicitationTimeoutMs: number;
  http: HttpConfig;
  /**
   * HTTP mode: OAuth 2.1 resource server (src/auth/): tokens from this authorization server, for our resource.
   * Undefined = static tokens only.
   */
  oauth?: OAuthConfig | undefined;
  /** HTTP mode: Slack identity auth (`GENPLAT_SLACK_SIGNING_SECRETS` + `GENPLAT_SLACK_TEAMS`); undefined = off. */
  slack?: SlackAuthConfig | undefined;
  /** HTTP mode: bot credentials that may act for people (`GENPLAT_HTTP_DELEGATING`, src/auth/delegation.ts). */
  delegation: DelegationConfig;
  /** `GENPLAT_REPORT_READERS`: who reads every caller's spend report over HTTP (src/report/readers.ts). */
  reportReaders?: ReportReaders | undefined;
  /** `GENPLAT_PEOPLE`: owner id → name, e-mail, groups (src/people/); empty when unset. */
  people: PeopleDirectory;
  /** The people file's path, for doctor. */
  peopleFile?: string | undefined;
  /** Events to bots (GENPLAT_EVENTS_*, src/events/config.ts, docs/events.md); undefined = off. */
  events?: EventsConfig | undefined;
  /** Metrics (OTEL_* and GENPLAT_METRICS_TOKEN, src/telemetry/metrics-config.ts); undefined = off. */
  metrics?: MetricsConfig | undefined;
  /** OpenTelemetry traces (OTEL_*, src/telemetry/traces-settings.ts, docs/operate.md "Traces"); undefined = off. */
  traces?: TracesSettings | undefined;
  /**
   * HTTP mode with OAuth: our confidential client at the issuer (GENPLAT_OAUTH_CLIENT_ID/SECRET): introspection's
   * credentials, and the approval page's sign-in (src/approvals/page/, docs/approvals-page.md). Undefined unless
   * both are set and OAuth is on.
   */
  oauthClient?: { clientId: string; clientSecret: string } | undefined;
  /**
   * HTTP mode: our public https base; set = webhooks on (per-job callback URLs `<base>/hooks/<id>`, receiver in
   * src/webhooks/). The proxy in front must forward `<base>/hooks/*` to this server's `/hooks/*`.
   */
  publicUrl: string | undefined;
  /**
   * `GENPLAT_CONSENT`: `human` = only a person's answer (App click, elicitation form) confirms a paid call; a
   * token the model presents itself is refused. `any` = tokens too (the default).
   */
  consent: 'any' | 'human';
  /** `GENPLAT_OUTPUT_DIR`: where save_outputs writes (stdio only); every file stays inside it. */
  outputDir: string;
  /** `GENPLAT_SAVE_MAX_MB` in bytes: the largest single file save_outputs downloads. */
  saveMaxBytes: number;
  /** `GENPLAT_MEDIA_HOSTS`: origins (https://host) the Apps' CSP lets media load from, besides the sandbox's. */
  mediaHosts: string[];
  /** Local media files (issue 22): where paths may point, and where they are staged for the platform. */
  files: FilesConfig;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Test-only: `GENPLAT_TEST_KILL_AT` (src/kill-steps.ts). Undefined in every real deployment. */
  testKillAt?: PaidStep | undefined;
}

/**
 * Local media files (src/files/). `inputDirs`: `GENPLAT_INPUT_DIRS`, the folders a local path may name when the
 * client declares no MCP roots. `staging`: an S3-compatible bucket the platform fetches staged files from;
 * credentials come only from the AWS SDK's default chain (never read here).
 */
export interface FilesConfig {
  inputDirs: string[];
  staging:
    | {
        bucket: string;
        endpoint: string | undefined;
        region: string;
        prefix: string;
        pathStyle: boolean;
        ttlSeconds: number;
      }
    | undefined;
  /** GENPLAT_STAGING_TTL_S for the self stager (HTTP + GENPLAT_PUBLIC_URL, no bucket); default 3600. */
  stagedTtlSeconds?: number | undefined;
  /** `GENPLAT_UPLOAD_MAX_PENDING`, `GENPLAT_UPLOAD_MAX_INFLIGHT`, `GENPLAT_UPLOAD_IDLE_S` (HTTP uploads). */
  uploadLimits?: UploadLimits | undefined;
}

/** Tokens are case-sensitive secrets: split and trimmed, never lower-cased. */
export const splitTokens = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

const intFrom = (name: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .pipe(z.number().int().min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`));

const EnvSchema = z.object({
  // An empty value (a config template's placeholder) counts as unset: sandbox ignores it, serve says "required".
  GENPLAT_API_KEY: z
    .string()
    .trim()
    .transform((v) => v || undefined)
    .optional(),
  GENPLAT_BASE_URL: z.string().trim().optional(),
  GENPLAT_VENDORS: z.string().optional(),
  GENPLAT_CONFIRM: z.string().optional(),
  GENPLAT_MAX_CREDITS_PER_CALL: intFrom('GENPLAT_MAX_CREDITS_PER_CALL', 0).optional(),
  GENPLAT_MAX_CREDITS_PER_DAY: intFrom('GENPLAT_MAX_CREDITS_PER_DAY', 0).optional(),
  GENPLAT_PRICE_TABLE: z.string().optional(),
  GENPLAT_USER_MAX_CREDITS_PER_DAY: intFrom('GENPLAT_USER_MAX_CREDITS_PER_DAY', 0).optional(),
  GENPLAT_USER_BUDGETS: z.string().optional(),
  GENPLAT_MAX_CREDITS_PER_WEEK: intFrom('GENPLAT_MAX_CREDITS_PER_WEEK', 1).optional(),
  GENPLAT_MAX_CREDITS_PER_MONTH: intFrom('GENPLAT_MAX_CREDITS_PER_MONTH', 1).optional(),
  GENPLAT_BUDGETS: z.string().optional(),
  GENPLAT_APPROVALS: z.string().trim().optional(),
  // Empty (a bundle's blank optional field) = the OS default.
  GENPLAT_STATE_DIR: z
    .string()
    .trim()
    .transform((v) => v || undefined)
    .optional(),
  GENPLAT_DATABASE_URL: z
    .string()
    .trim()
    .transform((v) => v || undefined)
    .optional(),
  GENPLAT_DB_CONNECT_TIMEOUT_MS: intFrom('GENPLAT_DB_CONNECT_TIMEOUT_MS', 100).optional(),
  GENPLAT_DB_STATEMENT_TIMEOUT_MS: intFrom('GENPLAT_DB_STATEMENT_TIMEOUT_MS', 100).optional(),
  GENPLAT_DB_LOCK_TIMEOUT_MS: intFrom('GENPLAT_DB_LOCK_TIMEOUT_MS', 100).optional(),
  GENPLAT_DB_IDLE_TX_TIMEOUT_MS: intFrom('GENPLAT_DB_IDLE_TX_TIMEOUT_MS', 100).optional(),
  GENPLAT_TOOLSETS: z.string().optional(),
  GENPLAT_READ_ONLY: z.enum(['0', '1', 'true', 'false']).optional(),
  GENPLAT_SANDBOX: z.enum(['0', '1', 'true', 'false']).optional(),
  GENPLAT_WEBHOOK_ALLOWLIST: z.string().optional(),
  GENPLAT_ELICITATION: z.enum(['auto', 'off']).optional(),
  GENPLAT_ELICITATION_SKIP_CLIENTS: z.string().optional(),
  GENPLAT_ELICITATION_TIMEOUT_MS: intFrom('GENPLAT_ELICITATION_TIMEOUT_MS', 1000).optional(),
  // Comma-separated, one token per caller, `name=token` or `token`: checked by parseHttpTokens (never quoted).
  GENPLAT_HTTP_TOKEN: z.string().optional(),
  GENPLAT_HTTP_DELEGATING: z.string().optional(),
  // `name=read|quote|spend` per named token: checked by parseTokenScopes.
  GENPLAT_HTTP_TOKEN_SCOPES: z.string().optional(),
  GENPLAT_SLACK_SIGNING_SECRETS: z.string().optional(),
  GENPLAT_SLACK_TEAMS: z.string().optional(),
  GENPLAT_PEOPLE: z.string().optional(),
  GENPLAT_REPORT_READERS: z.string().optional(),
  GENPLAT_EVENTS_URL: z.string().optional(),
  GENPLAT_METRICS_TOKEN: z.string().optional(),
  GENPLAT_EVENTS_SECRET: z.string().optional(),
  GENPLAT_EVENTS_ENDPOINTS: z.string().optional(),
  // Seconds: 1 minute (a test) to 30 days.
  GENPLAT_EVENTS_RETRY_FOR: intFrom('GENPLAT_EVENTS_RETRY_FOR', 60, 30 * 24 * 3600).optional(),
  GENPLAT_OAUTH_ISSUER: z.string().optional(),
  GENPLAT_OAUTH_RESOURCE: z.string().optional(),
  GENPLAT_OAUTH_AUDIENCE: z.string().optional(),
  GENPLAT_OAUTH_JWKS_URL: z.string().optional(),
  GENPLAT_OAUTH_INTROSPECTION_URL: z.string().optional(),
  GENPLAT_OAUTH_CLIENT_ID: z.string().optional(),
  GENPLAT_OAUTH_CLIENT_SECRET: z.string().optional(),
  GENPLAT_OAUTH_GROUPS_CLAIM: z.string().optional(),
  GENPLAT_HTTP_HOST: z.string().optional(),
  GENPLAT_HTTP_PORT: intFrom('GENPLAT_HTTP_PORT', 0, 65535).optional(),
  GENPLAT_HTTP_ALLOWED_ORIGINS: z.string().optional(),
  GENPLAT_HTTP_ALLOWED_HOSTS: z.string().optional(),
  GENPLAT_HTTP_MAX_INFLIGHT: intFrom('GENPLAT_HTTP_MAX_INFLIGHT', 1, 10_000).optional(),
  GENPLAT_HTTP_MAX_INFLIGHT_PER_TOKEN: intFrom('GENPLAT_HTTP_MAX_INFLIGHT_PER_TOKEN', 1, 10_000).optional(),
  // 0.1 names (HTTP had sessions then): read as the in-flight limits so an old deployment keeps its caps.
  GENPLAT_HTTP_MAX_SESSIONS: intFrom('GENPLAT_HTTP_MAX_SESSIONS', 1, 10_000).optional(),
  GENPLAT_HTTP_MAX_SESSIONS_PER_TOKEN: intFrom('GENPLAT_HTTP_MAX_SESSIONS_PER_TOKEN', 1, 10_000).optional(),
  GENPLAT_HTTP_RATE_LIMIT: intFrom('GENPLAT_HTTP_RATE_LIMIT', 1, 100_000).optional(),
  GENPLAT_PUBLIC_URL: z.string().optional(),
  GENPLAT_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).optional(),
  // OpenTelemetry's own names, shared by traces (src/telemetry/traces-settings.ts) and metrics
  // (metrics-config.ts); the OTLP exporters read their other OTEL_EXPORTER_OTLP_* variables (headers, timeout,
  // certificates) themselves.
  OTEL_SDK_DISABLED: z.string().optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().optional(),
  OTEL_TRACES_EXPORTER: z.string().optional(),
  OTEL_METRICS_EXPORTER: z.string().optional(),
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: z.string().optional(),
  // Milliseconds: 1 s (a test) to 1 h.
  OTEL_METRIC_EXPORT_INTERVAL: intFrom('OTEL_METRIC_EXPORT_INTERVAL', 1000, 3_600_000).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.string().optional(),
  GENPLAT_CONSENT: z.enum(['any', 'human']).optional(),
  GENPLAT_OUTPUT_DIR: z
    .string()
    .trim()
    .transform((v) => v || undefined)
    .optional(),
  GENPLAT_SAVE_MAX_MB: intFrom('GENPLAT_SAVE_MAX_MB', 1, 100_000).optional(),
  GENPLAT_MEDIA_HOSTS: z.string().optional(),
  GENPLAT_INPUT_DIRS: z.string().optional(),
  GENPLAT_STAGING_BUCKET: z
    .string()
    .trim()
    .transform((v) => v || undefined)
    .optional(),
  GENPLAT_STAGING_ENDPOINT: z.string().trim().optional(),
  GENPLAT_STAGING_REGION: z.string().trim().optional(),
  GENPLAT_STAGING_PREFIX: z.string().trim().optional(),
  GENPLAT_STAGING_PATH_STYLE: z.enum(['0', '1', 'true', 'false']).optional(),
  GENPLAT_STAGING_TTL_S: intFrom('GENPLAT_STAGING_TTL_S', 1, 7 * 24 * 3600).optional(),
  GENPLAT_UPLOAD_MAX_PENDING: intFrom('GENPLAT_UPLOAD_MAX_PENDING', 1, 1000).optional(),
  GENPLAT_UPLOAD_MAX_INFLIGHT: intFrom('GENPLAT_UPLOAD_MAX_INFLIGHT', 1, 100).optional(),
  GENPLAT_UPLOAD_IDLE_S: intFrom('GENPLAT_UPLOAD_IDLE_S', 1, 3600).optional(),
  // Test-only (src/kill-steps.ts): SIGKILL the server at a named step of a paid call.
  GENPLAT_TEST_KILL_AT: z
    .enum([...PAID_STEPS, ...CAMPAIGN_STEPS, ...SPOOL_STEPS, ...APPROVAL_STEPS, ...EVENT_STEPS])
    .optional(),
});

type Env = z.output<typeof EnvSchema>;

/**
 * `serve` is the default (no command word); `sim`, `doctor`, `audit` (`audit export`), `report`, `db` (`db migrate`,
 * `db grant ROLE`), `install` (`install <host>`) and `events` (`events log`) are positionals.
 */
export const COMMANDS = ['serve', 'sim', 'doctor', 'audit', 'report', 'db', 'install', 'events'] as const;
export type Command = (typeof COMMANDS)[number];

/** The refusal of `--sandbox` with GENPLAT_DATABASE_URL (docs/sandbox.md "A fleet rehearsal"). */
export const SANDBOX_WITH_DATABASE =
  'GENPLAT_DATABASE_URL cannot go with --sandbox: every sandbox server runs its own simulator, so its jobs in a shared database would be handles no other instance can read, next to real jobs and spend. Unset it (the sandbox keeps its jobs in <state dir>/sandbox); for a fleet rehearsal run `genplat-mcp sim` once and start each instance without --sandbox, with GENPLAT_BASE_URL and GENPLAT_API_KEY as sim prints them and GENPLAT_DATABASE_URL on a rehearsal database (docs/sandbox.md).';

const SERVE_LIKE = ['serve', 'doctor'] as const satisfies readonly Command[];
const EVERY = COMMANDS;

export interface FlagSpec {
  type: 'boolean' | 'string';
  short?: string;
  /** The commands that take it: a flag given to another command is refused, naming the closest one it takes. */
  commands: readonly Command[];
  /** Placeholder of a string flag's value in --help. */
  value?: string;
  /**
   * Commands where this flag takes a value although elsewhere it is a switch, with its placeholder: the server's
   * `--http` switch is `install <host> --http URL` (the URL of a server already running).
   */
  valueIn?: Partial<Record<Command, string>>;
}

/** How `command` reads `flag`: a string where `valueIn` says so, else the table's type. */
export function flagSpecFor(flag: CliFlag, command: Command): FlagSpec {
  const spec: FlagSpec = CLI_FLAGS[flag];
  const value = spec.valueIn?.[command];
  return value ? { ...spec, type: 'string', value } : spec;
}

/**
 * Every command-line flag. `parseCli` accepts exactly these (per command) and `--help` lists exactly these
 * (src/cli-help.ts, meanings from src/config-docs.ts), so neither can miss a flag. `doctor` takes the server's
 * flags because it checks the configuration the server would run with.
 */
export const CLI_FLAGS = {
  sandbox: { type: 'boolean', commands: [...SERVE_LIKE, 'audit', 'report', 'install', 'events'] },
  'reset-sandbox': { type: 'boolean', commands: ['serve'] },
  'read-only': { type: 'boolean', commands: SERVE_LIKE },
  http: { type: 'boolean', commands: [...SERVE_LIKE, 'install'], valueIn: { install: 'URL' } },
  host: { type: 'string', value: 'ADDR', commands: SERVE_LIKE },
  port: { type: 'string', value: 'N', commands: ['serve', 'sim', 'doctor'] },
  toolsets: { type: 'string', value: 'LIST', commands: SERVE_LIKE },
  // `db` works on GENPLAT_DATABASE_URL alone.
  'state-dir': { type: 'string', value: 'DIR', commands: ['serve', 'sim', 'doctor', 'audit', 'report', 'events'] },
  reset: { type: 'boolean', commands: ['sim'] },
  // `audit export` (src/audit/cli.ts).
  format: { type: 'string', value: 'csv|jsonl', commands: ['audit'] },
  since: { type: 'string', value: 'ISO', commands: ['audit', 'report'] },
  user: { type: 'string', value: 'ID', commands: ['audit'] },
  // `report` (src/report/cli.ts).
  by: { type: 'string', value: 'person|team|tool|day|week|month', commands: ['report'] },
  until: { type: 'string', value: 'ISO', commands: ['report'] },
  csv: { type: 'boolean', commands: ['report'] },
  // `install <host>` (src/install/cli.ts).
  print: { type: 'boolean', commands: ['install'] },
  node: { type: 'string', value: 'PATH', commands: ['install'] },
  config: { type: 'string', value: 'PATH', commands: ['install'] },
  trust: { type: 'boolean', commands: ['install'] },
  headless: { type: 'boolean', commands: ['install'] },
  help: { type: 'boolean', short: 'h', commands: EVERY },
  version: { type: 'boolean', commands: EVERY },
} as const satisfies Record<string, FlagSpec>;
export type CliFlag = keyof typeof CLI_FLAGS;

/** The flags `command` takes, in the table's order. */
export function flagsOf(command: Command): CliFlag[] {
  return (Object.keys(CLI_FLAGS) as CliFlag[]).filter((f) =>
    (CLI_FLAGS[f].commands as readonly Command[]).includes(command),
  );
}

/** Flags recognised on the command line; sub-commands (`sim`, `doctor`, `audit export`) are positionals. */
export interface CliArgs {
  command: Command;
  /** `audit export` only (src/audit/cli.ts). */
  audit?: AuditArgs | undefined;
  /** `report` only (src/report/cli.ts). */
  report?: ReportArgs | undefined;
  /** `db migrate` / `db grant ROLE` only (src/store/db-cli.ts). */
  db?: DbArgs | undefined;
  /** `install <host>` only (src/install/cli.ts). */
  install?: InstallArgs | undefined;
  sandbox: boolean;
  readOnly: boolean;
  http: boolean;
  host: string | undefined;
  port: number | undefined;
  toolsets: string | undefined;
  stateDir: string | undefined;
  /** `--reset-sandbox`: the `--sandbox` server starts with an empty sandbox (simulator state and its job store). */
  resetSandbox?: boolean;
  /** `sim --reset`: the standalone simulator starts with an empty state file. */
  reset?: boolean;
  help?: boolean;
  version?: boolean;
}

const isCommand = (c: string): c is Command => (COMMANDS as readonly string[]).includes(c);
const commandLine = (c: Command) => (c === 'serve' ? 'genplat-mcp' : `genplat-mcp ${c}`);

/** One line for a flag `command` does not take: the closest one it does, and where the full list is. */
function unknownFlag(raw: string, command: Command): string {
  const name = raw.replace(/^-+/, '');
  const ownFlags = flagsOf(command);
  const guess = closest(name, ownFlags);
  const owners = COMMANDS.filter((c) => c !== command && flagsOf(c).includes(name as CliFlag));
  const elsewhere = owners.length
    ? ` (it is an option of ${owners.map((c) => `\`${commandLine(c)}\``).join(', ')})`
    : '';
  const hint = guess ? `; did you mean --${guess}?` : '';
  return `unknown option ${raw} for \`${commandLine(command)}\`${elsewhere}${hint || '.'} Run \`${commandLine(command)} --help\` for its options.`;
}

/**
 * Reads the command line.
 * @throws ConfigurationError for an unknown command or flag (naming the closest known one) or a bad value;
 *   parseArgs' own errors (a string flag without its value) pass through.
 */
export function parseCli(argv: string[]): CliArgs {
  // A loose first pass finds the command and every flag given, so an unknown flag is reported with the closest
  // known one: parseArgs' strict message names none, and says nothing about which command takes what.
  const loose = parseArgs({ args: argv, allowPositionals: true, strict: false, tokens: true, options: CLI_FLAGS });
  const word = loose.positionals[0] ?? 'serve';
  const allowed: readonly string[] = isCommand(word) ? flagsOf(word) : Object.keys(CLI_FLAGS);
  for (const t of loose.tokens) {
    if (t.kind === 'option' && !allowed.includes(t.name)) {
      throw new ConfigurationError([unknownFlag(t.rawName, isCommand(word) ? word : 'serve')]);
    }
  }
  if (!isCommand(word)) {
    const guess = closest(word, ['sim', 'doctor', 'audit', 'report', 'db', 'install', 'events', 'help']);
    const hint = guess === 'help' ? '; did you mean --help?' : guess ? `; did you mean "${guess}"?` : '';
    throw new ConfigurationError([
      `unknown command "${word}": use no command, "sim", "doctor", "audit export", "report", "db migrate", "install <host>" or "events log"${hint}`,
    ]);
  }
  const command = word;
  const options = Object.fromEntries(flagsOf(command).map((f) => [f, flagSpecFor(f, command)]));
  const { values: v, positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true, options });
  const values = v as Partial<Record<CliFlag, string | boolean>>;
  const str = (f: CliFlag) => (typeof values[f] === 'string' ? (values[f] as string) : undefined);
  const bool = (f: CliFlag) => values[f] === true;
  const audit =
    command === 'audit' && !bool('help') && !bool('version')
      ? parseAuditArgs(positionals.slice(1), { format: str('format'), since: str('since'), user: str('user') })
      : undefined;
  const report =
    command === 'report' && !bool('help') && !bool('version')
      ? parseReportArgs(positionals.slice(1), {
          by: str('by'),
          since: str('since'),
          until: str('until'),
          csv: bool('csv'),
        })
      : undefined;
  const db = command === 'db' && !bool('help') && !bool('version') ? parseDbArgs(positionals.slice(1)) : undefined;
  if (command === 'events' && !bool('help') && !bool('version')) {
    const rest = positionals.slice(1);
    if (rest.length !== 1 || rest[0] !== 'log')
      throw new ConfigurationError(['use "genplat-mcp events log [--sandbox] [--state-dir DIR]"']);
  }
  const install =
    command === 'install' && !bool('help') && !bool('version')
      ? parseInstallArgs(positionals.slice(1), {
          sandbox: bool('sandbox'),
          print: bool('print'),
          trust: bool('trust'),
          headless: bool('headless'),
          node: str('node'),
          config: str('config'),
          http: str('http'),
        })
      : undefined;
  let port: number | undefined;
  const rawPort = str('port');
  if (rawPort !== undefined) {
    // Number('') is 0 and Number('1e3') is 1000: only plain digits are a port.
    port = /^\d+$/.test(rawPort) ? Number(rawPort) : Number.NaN;
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new ConfigurationError([`--port must be a whole number from 0 to 65535, got "${rawPort}"`]);
    }
  }
  return {
    command,
    ...(audit ? { audit } : {}),
    ...(report ? { report } : {}),
    ...(db ? { db } : {}),
    ...(install ? { install } : {}),
    sandbox: bool('sandbox'),
    readOnly: bool('read-only'),
    http: command !== 'install' && bool('http'),
    host: str('host'),
    port,
    toolsets: str('toolsets'),
    stateDir: str('state-dir'),
    resetSandbox: bool('reset-sandbox'),
    reset: bool('reset'),
    help: bool('help'),
    version: bool('version'),
  };
}

/** `genplat-mcp db migrate` / `genplat-mcp db grant ROLE` (docs/storage.md). */
export type DbArgs = { action: 'migrate' } | { action: 'grant'; role: string };

function parseDbArgs(rest: string[]): DbArgs {
  if (rest.length === 1 && rest[0] === 'migrate') return { action: 'migrate' };
  if (rest.length === 2 && rest[0] === 'grant' && rest[1]?.trim()) return { action: 'grant', role: rest[1].trim() };
  throw new ConfigurationError(['use "genplat-mcp db migrate" or "genplat-mcp db grant <runtime role>"']);
}

/** `genplat-mcp install <host>` (src/install/cli.ts, docs/hosts.md). */
export interface InstallArgs {
  host: HostId;
  sandbox: boolean;
  /** Show the entry only; write nothing. */
  print: boolean;
  /** `--trust`: the host runs our tools without its own prompt (Gemini `trust`, Codex approval mode). */
  trust: boolean;
  /** `--headless`: GENPLAT_ELICITATION=off in the entry (`claude -p`, `codex exec` answer forms themselves). */
  headless: boolean;
  node?: string | undefined;
  /** The config file to write instead of the host's own. */
  config?: string | undefined;
  /** `--http URL`: a remote entry for a server already running at URL (its MCP endpoint), not a stdio one. */
  http?: string | undefined;
}

function parseInstallArgs(rest: string[], flags: Omit<InstallArgs, 'host'>): InstallArgs {
  const [host, ...extra] = rest;
  const isHost = (h: string | undefined): h is HostId => (HOSTS as readonly string[]).includes(h ?? '');
  if (!isHost(host) || extra.length > 0) {
    const guess = host && !isHost(host) ? closest(host, HOSTS) : undefined;
    throw new ConfigurationError([
      `use "genplat-mcp install <host>" with one of: ${HOSTS.join(', ')}${host && !isHost(host) ? ` (got "${host}"${guess ? `; did you mean "${guess}"?` : ''})` : ''}`,
    ]);
  }
  for (const f of ['node', 'config'] as const) {
    if (flags[f] !== undefined && flags[f].trim() === '') throw new ConfigurationError([`--${f} must name a path`]);
  }
  if (flags.http !== undefined) {
    const why = httpUrlProblem(flags.http);
    if (why) throw new ConfigurationError([`--http ${why}`]);
    // Those flags shape the stdio process we start; over HTTP the running server already has its own.
    const stdioOnly = (['sandbox', 'headless', 'node'] as const).filter(
      (f) => flags[f] !== undefined && flags[f] !== false,
    );
    if (stdioOnly.length)
      throw new ConfigurationError([
        `${stdioOnly.map((f) => `--${f}`).join(', ')} cannot go with --http: they set up a server install starts itself; the server at ${flags.http} runs with its own settings (start it with --sandbox or GENPLAT_ELICITATION=off there).`,
      ]);
  }
  return { host, ...flags };
}

/**
 * Why `raw` is not a URL to give a host for our HTTP server, or undefined. The host sends the bearer token to it
 * on every request, so plain http is accepted only to this machine (loopback): anywhere else the token would
 * cross the network readable.
 */
function httpUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `must be the server's full MCP URL, e.g. http://127.0.0.1:8787/mcp (got "${raw}")`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `must be an http(s) URL (got "${url.protocol}")`;
  if (url.username || url.password) return 'must not carry a user or password: the token goes in a header';
  const loopback = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(url.hostname);
  if (url.protocol === 'http:' && !loopback)
    return `must be https for ${url.hostname}: over plain http the bearer token would cross the network readable (http is accepted for localhost, 127.x.x.x and [::1] only)`;
  return undefined;
}

/** `genplat-mcp audit export [--format csv|jsonl] [--since ISO] [--user ID]`. */
export interface AuditArgs {
  format: 'csv' | 'jsonl';
  since: Date | undefined;
  user: string | undefined;
}

function parseAuditArgs(
  rest: string[],
  values: { format?: string | undefined; since?: string | undefined; user?: string | undefined },
): AuditArgs {
  const problems: string[] = [];
  if (rest.length !== 1 || rest[0] !== 'export')
    problems.push('use "genplat-mcp audit export [--format csv|jsonl] [--since ISO] [--user ID]"');
  const format = values.format ?? 'csv';
  if (format !== 'csv' && format !== 'jsonl') problems.push(`--format must be csv or jsonl, got "${format}"`);
  let since: Date | undefined;
  if (values.since !== undefined) {
    // Date.parse accepts odd spellings ("1"): only an ISO 8601 date or date-time is a cut-off the user meant.
    since = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(values.since)
      ? new Date(values.since)
      : undefined;
    if (!since || Number.isNaN(since.getTime()))
      problems.push(`--since must be an ISO 8601 date or date-time, got "${values.since}"`);
  }
  if (values.user !== undefined && values.user.trim() === '') problems.push('--user must name a caller id');
  if (problems.length) throw new ConfigurationError(problems);
  return { format: format as AuditArgs['format'], since, user: values.user?.trim() };
}

/** `genplat-mcp report [--by …] [--since ISO] [--until ISO] [--csv]` (src/report/cli.ts). */
export interface ReportArgs extends ReportSelection {
  csv: boolean;
}

function parseReportArgs(
  rest: string[],
  values: { by?: string | undefined; since?: string | undefined; until?: string | undefined; csv: boolean },
): ReportArgs {
  const problems: Problem[] = [];
  if (rest.length !== 0) problems.push({ field: 'report', rule: `takes no word after it, got "${rest.join(' ')}"` });
  const selection = parseSelection(values, problems);
  if (problems.length) throw new ConfigurationError(problems.map((p) => `--${p.field} ${p.rule}`));
  return { ...selection, csv: values.csv };
}

/** The OS data directory for genplat-mcp (XDG on Linux, Application Support on macOS, LOCALAPPDATA on Windows). */
export function defaultStateDir(env: NodeJS.ProcessEnv): string {
  const home = homedir();
  if (platform() === 'darwin') return join(home, 'Library', 'Application Support', 'genplat-mcp');
  if (platform() === 'win32') return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'genplat-mcp');
  return join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'genplat-mcp');
}

const truthy = (v: string | undefined) => v === '1' || v === 'true';

function isLoopbackHost(hostname: string): boolean {
  return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]' || hostname === '::1';
}

function parseVendors(raw: string | undefined, problems: string[]): VendorMap {
  const map: VendorMap = {};
  if (!raw) return map;
  for (const part of raw.split(',')) {
    const item = part.trim();
    if (!item) continue;
    const m = /^([A-Ma-m])\s*=\s*([a-z0-9][a-z0-9._-]*)$/.exec(item);
    if (!m) {
      problems.push(`GENPLAT_VENDORS: "${item}" must look like C=seedance (letter A-M, lower-case name)`);
      continue;
    }
    map[m[1]!.toUpperCase() as VendorLetter] = m[2]!;
  }
  return map;
}

function parseConfirm(input: string | undefined, problems: string[]): ConfirmPolicy {
  const raw = input?.trim().toLowerCase();
  if (raw === undefined || raw === '' || raw === 'always') return { mode: 'always' };
  if (raw === 'never') return { mode: 'never' };
  const m = /^above:\s*(\d+)$/.exec(raw);
  if (m) return { mode: 'above', credits: Number(m[1]) };
  problems.push(`GENPLAT_CONFIRM must be "always", "never" or "above:N" (N in displayed credits), got "${input}"`);
  return { mode: 'always' };
}

/**
 * GENPLAT_PRICE_TABLE: inline JSON (starts with `{` or `[`) or a path to a JSON file holding
 * `{"<key>": <displayed credits>}`. Each bad entry is reported by its key; the table is then unusable.
 */
export function parsePriceTable(raw: string | undefined, problems: string[]): Record<string, number> {
  const source = raw?.trim();
  if (!source) return {};
  let text = source;
  // Inline JSON starts like JSON; anything else is a file path.
  if (!/^[[{]/.test(source)) {
    try {
      text = readFileSync(source, 'utf8');
    } catch (err) {
      problems.push(
        `GENPLAT_PRICE_TABLE: cannot read the file "${source}" (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
      return {};
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    problems.push('GENPLAT_PRICE_TABLE: not valid JSON; expected {"<tool or tool:model>": <displayed credits>, …}');
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push('GENPLAT_PRICE_TABLE: must be a JSON object {"<tool or tool:model>": <displayed credits>, …}');
    return {};
  }
  const table: Record<string, number> = {};
  let bad = false;
  for (const [key, value] of Object.entries(parsed)) {
    if (!/^[a-z_]+(:.+)?$/.test(key)) {
      problems.push(
        `GENPLAT_PRICE_TABLE: key "${key}" must be a tool name or "<tool>:<model>", e.g. "run_model:flux-2-pro"`,
      );
      bad = true;
    } else if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      problems.push(`GENPLAT_PRICE_TABLE: key "${key}" must map to a non-negative number of displayed credits`);
      bad = true;
    } else {
      table[key] = value;
    }
  }
  return bad ? {} : table;
}

/**
 * GENPLAT_USER_BUDGETS: inline JSON `{"<owner id>": <displayed credits per UTC day>}`. Keys are caller ids as
 * `list_jobs` and `audit export` show them (static tokens: `http-<hash>`). A bad entry is named by its key.
 */
export function parseUserBudgets(raw: string | undefined, problems: string[]): Record<string, number> {
  const source = raw?.trim();
  if (!source) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch {
    problems.push('GENPLAT_USER_BUDGETS: not valid JSON; expected {"<caller id>": <credits per day>, …}');
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push('GENPLAT_USER_BUDGETS: must be a JSON object {"<caller id>": <credits per day>, …}');
    return {};
  }
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (key.trim() === '' || key !== key.trim()) {
      problems.push(`GENPLAT_USER_BUDGETS: key "${key}" must be a caller id without surrounding spaces`);
    } else if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      problems.push(`GENPLAT_USER_BUDGETS: "${key}" must map to a whole, non-negative number of displayed credits`);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function parseToolsets(raw: string | undefined, problems: string[], source: string): Toolset[] {
  const names = (raw ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0 || names.includes('all')) return [...TOOLSETS];
  const out: Toolset[] = [];
  for (const name of names) {
    if (out.includes(name as Toolset)) continue;
    if ((TOOLSETS as readonly string[]).includes(name)) out.push(name as Toolset);
    else problems.push(`${source}: unknown toolset "${name}"; known: ${TOOLSETS.join(', ')}, all`);
  }
  // The job tools are how any created job is ever found again, so they are always on.
  if (!out.includes('jobs')) out.push('jobs');
  return out;
}

/** A DNS name in ASCII (punycode) form, labels of 1-63 characters. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * Allow-list entries are bare host names, compared exactly by the webhook guard; an entry written as a URL
 * (`https://hooks.example.com/x`) would otherwise never match and silently disable webhooks.
 */
function parseWebhookAllowlist(raw: string | undefined, problems: string[]): string[] {
  const hosts: string[] = [];
  for (const entry of list(raw)) {
    const ascii = domainToASCII(entry.replace(/\.+$/, ''));
    if (!ascii || !HOST_NAME.test(ascii)) {
      problems.push(
        `GENPLAT_WEBHOOK_ALLOWLIST: "${entry}" must be a bare host name such as hooks.example.com (no scheme, port or path)`,
      );
      continue;
    }
    if (!hosts.includes(ascii)) hosts.push(ascii);
  }
  return hosts;
}

/**
 * Origins are compared exactly with the browser's `Origin` header (`scheme://host[:port]`), so an entry with a
 * path or without a scheme would never match; it is reported instead of silently locking browsers out.
 */
function parseOrigins(raw: string | undefined, problems: string[]): string[] {
  const out: string[] = [];
  for (const entry of list(raw)) {
    let origin: string | undefined;
    try {
      const u = new URL(entry);
      if ((u.protocol === 'http:' || u.protocol === 'https:') && `${u.origin}` === entry.replace(/\/$/, '')) {
        origin = u.origin;
      }
    } catch {
      // reported below
    }
    if (origin) out.push(origin);
    else problems.push(`GENPLAT_HTTP_ALLOWED_ORIGINS: "${entry}" must be an origin such as https://app.example.com`);
  }
  return out;
}

/** Parses each variable on its own, so one bad value does not hide the problems of the others. */
function parseEnv(env: NodeJS.ProcessEnv, problems: string[]): Env {
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(EnvSchema.shape)) {
    // MCP Bundle hosts pass a blank optional field through as the literal `${user_config.x}`: that is unset.
    const raw = env[key];
    const r = (schema as z.ZodType).safeParse(raw !== undefined && /^\$\{[^}]*\}$/.test(raw.trim()) ? undefined : raw);
    if (r.success) {
      if (r.data !== undefined) out[key] = r.data;
      continue;
    }
    // zod's own messages (enums) do not say which variable; ours start with its name.
    for (const issue of r.error.issues)
      problems.push(issue.message.includes(key) ? issue.message : `${key}: ${issue.message}`);
  }
  return out as Env;
}

const list = (raw: string | undefined) =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

/**
 * Builds the Config from flags and environment.
 * @throws ConfigurationError listing one line per problem (never including a secret's value).
 */
export function loadConfig(cli: CliArgs, env: NodeJS.ProcessEnv): Config {
  const problems: string[] = [];
  const e = parseEnv(env, problems);
  const sandbox = cli.sandbox || truthy(e.GENPLAT_SANDBOX);

  let baseUrl: string | undefined;
  if (e.GENPLAT_BASE_URL && !sandbox) {
    try {
      const url = new URL(e.GENPLAT_BASE_URL);
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
        problems.push('GENPLAT_BASE_URL must use https (plain http is allowed only for 127.0.0.1/localhost)');
      } else if (url.username || url.password || url.search || url.hash) {
        problems.push('GENPLAT_BASE_URL must not contain credentials, a query or a fragment');
      }
      baseUrl = url.href.replace(/\/+$/, '');
    } catch {
      problems.push('GENPLAT_BASE_URL is not a valid URL');
    }
  }
  // `sim` needs no platform; `audit export`, `report` and `events log` read only the store; `db` works on the database alone.
  if (!sandbox && !['sim', 'audit', 'report', 'db', 'events'].includes(cli.command)) {
    if (!e.GENPLAT_API_KEY) problems.push('GENPLAT_API_KEY is required (or run with --sandbox to use the simulator)');
    if (!e.GENPLAT_BASE_URL)
      problems.push(
        'GENPLAT_BASE_URL is required: the platform base URL including its prefix (no default, so the key never goes to a guessed host)',
      );
  }

  const vendorOverrides = parseVendors(e.GENPLAT_VENDORS, problems);
  const vendors = sandbox ? sandboxVendors(vendorOverrides) : { ...ASSUMED_VENDORS, ...vendorOverrides };
  const confirm = parseConfirm(e.GENPLAT_CONFIRM, problems);
  const toolsets = parseToolsets(
    cli.toolsets ?? e.GENPLAT_TOOLSETS,
    problems,
    cli.toolsets ? '--toolsets' : 'GENPLAT_TOOLSETS',
  );

  const priceTable = parsePriceTable(e.GENPLAT_PRICE_TABLE, problems);
  const userBudgets = parseUserBudgets(e.GENPLAT_USER_BUDGETS, problems);
  const maxCreditsPerCall = e.GENPLAT_MAX_CREDITS_PER_CALL ?? 2000;
  const maxCreditsPerDay = e.GENPLAT_MAX_CREDITS_PER_DAY ?? 10000;
  if (maxCreditsPerCall > maxCreditsPerDay) {
    problems.push('GENPLAT_MAX_CREDITS_PER_CALL must not exceed GENPLAT_MAX_CREDITS_PER_DAY');
  }
  const budgetsFile = e.GENPLAT_BUDGETS?.trim() || undefined;
  const budgets = budgetsFile ? loadBudgetsFile(resolve(budgetsFile), problems) : undefined;
  if (budgets) {
    budgetConflicts(budgets, { userMaxCreditsPerDay: e.GENPLAT_USER_MAX_CREDITS_PER_DAY, userBudgets }, problems);
  }

  let publicUrl: string | undefined;
  if (e.GENPLAT_PUBLIC_URL) {
    try {
      const url = new URL(e.GENPLAT_PUBLIC_URL);
      if (url.protocol !== 'https:') problems.push('GENPLAT_PUBLIC_URL must be an https URL');
      publicUrl = url.href.replace(/\/+$/, '');
    } catch {
      problems.push('GENPLAT_PUBLIC_URL is not a valid URL');
    }
  }

  const baseStateDir = cli.stateDir ?? e.GENPLAT_STATE_DIR ?? defaultStateDir(env);
  const resetSandbox = cli.resetSandbox === true;
  if (resetSandbox && !sandbox) {
    problems.push('--reset-sandbox empties the sandbox: use it with --sandbox (or GENPLAT_SANDBOX=1)');
  }
  // The message never quotes the value: a database URL usually carries a password.
  if (e.GENPLAT_DATABASE_URL !== undefined && !/^postgres(ql)?:\/\/./i.test(e.GENPLAT_DATABASE_URL)) {
    problems.push('GENPLAT_DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  // Never silently ignored (issue 29 item 7): a sandbox server runs its own simulator, so its jobs exist nowhere
  // else; in a shared database they would be handles other instances cannot read, beside real jobs and spend.
  if (sandbox && cli.command === 'serve' && e.GENPLAT_DATABASE_URL !== undefined) {
    problems.push(SANDBOX_WITH_DATABASE);
  }
  const webhookAllowlist = parseWebhookAllowlist(e.GENPLAT_WEBHOOK_ALLOWLIST, problems);
  const mediaHosts = parseMediaHosts(e.GENPLAT_MEDIA_HOSTS, problems);
  const allowedOrigins = parseOrigins(e.GENPLAT_HTTP_ALLOWED_ORIGINS, problems);
  const httpTokens = parseHttpTokens(e.GENPLAT_HTTP_TOKEN, problems);
  if (e.GENPLAT_HTTP_TOKEN !== undefined && httpTokens.tokens.length === 0 && problems.length === 0) {
    problems.push('GENPLAT_HTTP_TOKEN must be at least 16 characters (each token, when comma-separated)');
  }
  const oauth = parseOAuthConfig(e, publicUrl, problems);
  const slack = parseSlackAuth(e.GENPLAT_SLACK_SIGNING_SECRETS, e.GENPLAT_SLACK_TEAMS, problems);
  const delegation = parseDelegating(e.GENPLAT_HTTP_DELEGATING, httpTokens.names, problems);
  const tokenScopes = parseTokenScopes(e.GENPLAT_HTTP_TOKEN_SCOPES, httpTokens.names, problems);
  const reportReaders = parseReportReaders(e.GENPLAT_REPORT_READERS, problems);
  const peopleFile = e.GENPLAT_PEOPLE?.trim() || undefined;
  const people = peopleFile ? loadPeopleFile(resolve(peopleFile), problems) : NO_PEOPLE;
  budgetsOnAliases(
    people,
    [
      { source: 'GENPLAT_USER_BUDGETS', ids: Object.keys(userBudgets) },
      { source: 'GENPLAT_BUDGETS: people', ids: Object.keys(budgets?.people ?? {}) },
    ],
    problems,
  );
  const events = loadEventsConfig(e, (p) => resolve(p), problems);
  // Traces first: metrics skip a problem of a shared OTEL_* variable that traces already named.
  const traces = tracesSettings(e, problems);
  const metrics = parseMetricsConfig(e, httpTokens.tokens, problems);
  // The SDK is loaded only when on, so an older Node.js is refused only then, naming what turned it on.
  const telemetryBy = traces
    ? 'OTEL_* (traces are on)'
    : metrics
      ? metrics.token
        ? 'GENPLAT_METRICS_TOKEN'
        : 'OTEL_* (metrics are on)'
      : undefined;
  const oldNode = telemetryBy ? telemetryNodeProblem(process.version, telemetryBy) : undefined;
  if (oldNode) problems.push(oldNode);
  if (problems.length > 0) {
    // Belt and braces: no message quotes the key today, but a value pasted into the wrong variable would be.
    const key = e.GENPLAT_API_KEY ?? env.GENPLAT_API_KEY?.trim();
    throw new ConfigurationError(
      key && key.length >= 8 ? problems.map((p) => p.split(key).join('[redacted]')) : problems,
    );
  }

  return {
    apiKey: sandbox ? undefined : e.GENPLAT_API_KEY,
    baseUrl: sandbox ? undefined : baseUrl,
    sandbox,
    vendors,
    confirm,
    maxCreditsPerCall,
    maxCreditsPerDay,
    ...(e.GENPLAT_USER_MAX_CREDITS_PER_DAY !== undefined
      ? { userMaxCreditsPerDay: e.GENPLAT_USER_MAX_CREDITS_PER_DAY }
      : {}),
    userBudgets,
    ...(e.GENPLAT_MAX_CREDITS_PER_WEEK !== undefined ? { maxCreditsPerWeek: e.GENPLAT_MAX_CREDITS_PER_WEEK } : {}),
    ...(e.GENPLAT_MAX_CREDITS_PER_MONTH !== undefined ? { maxCreditsPerMonth: e.GENPLAT_MAX_CREDITS_PER_MONTH } : {}),
    ...(budgets ? { budgets, budgetsFile: resolve(budgetsFile!) } : {}),
    priceTable,
    ...(e.GENPLAT_APPROVALS ? { approvalsFile: resolve(e.GENPLAT_APPROVALS) } : {}),
    // Sandbox spend and jobs never mix with real ones.
    stateDir: sandbox ? join(baseStateDir, 'sandbox') : baseStateDir,
    sandboxDir: join(baseStateDir, 'sandbox'),
    resetSandbox,
    // The sandbox keeps its simulated jobs in its own SQLite file, never in the fleet's database (a sandbox server
    // given one is refused above; `audit export --sandbox` reads the sandbox's file).
    databaseUrl: sandbox ? undefined : e.GENPLAT_DATABASE_URL,
    dbTimeouts: {
      connectMs: e.GENPLAT_DB_CONNECT_TIMEOUT_MS ?? DEFAULT_DB_TIMEOUTS.connectMs,
      statementMs: e.GENPLAT_DB_STATEMENT_TIMEOUT_MS ?? DEFAULT_DB_TIMEOUTS.statementMs,
      lockMs: e.GENPLAT_DB_LOCK_TIMEOUT_MS ?? DEFAULT_DB_TIMEOUTS.lockMs,
      idleInTransactionMs: e.GENPLAT_DB_IDLE_TX_TIMEOUT_MS ?? DEFAULT_DB_TIMEOUTS.idleInTransactionMs,
    },
    toolsets,
    readOnly: cli.readOnly || truthy(e.GENPLAT_READ_ONLY),
    webhookAllowlist,
    elicitation: e.GENPLAT_ELICITATION ?? 'auto',
    // Claude Desktop's chat declares elicitation but never shows the form (mcp-notes.md, CC-88901).
    elicitationSkipClients:
      e.GENPLAT_ELICITATION_SKIP_CLIENTS !== undefined ? list(e.GENPLAT_ELICITATION_SKIP_CLIENTS) : ['claude-ai'],
    elicitationTimeoutMs: e.GENPLAT_ELICITATION_TIMEOUT_MS ?? 40_000,
    http: {
      host: cli.host ?? e.GENPLAT_HTTP_HOST ?? '127.0.0.1',
      port: cli.port ?? e.GENPLAT_HTTP_PORT ?? 8787,
      token: httpTokens.tokens[0],
      tokens: httpTokens.tokens,
      tokenNames: httpTokens.names,
      tokenScopes,
      allowedOrigins,
      allowedHosts: list(e.GENPLAT_HTTP_ALLOWED_HOSTS),
      // 100 requests in flight per instance: a chat-ops team's clients, each with a 50 s wait open, with room to spare.
      maxInFlight: e.GENPLAT_HTTP_MAX_INFLIGHT ?? e.GENPLAT_HTTP_MAX_SESSIONS ?? 100,
      maxInFlightPerCaller: e.GENPLAT_HTTP_MAX_INFLIGHT_PER_TOKEN ?? e.GENPLAT_HTTP_MAX_SESSIONS_PER_TOKEN,
      // 120/min = 2 requests/s sustained per caller: far above an agent's pace, low enough to stop a runaway loop.
      rateLimitPerMin: e.GENPLAT_HTTP_RATE_LIMIT ?? 120,
    },
    publicUrl,
    oauth,
    oauthClient:
      oauth && e.GENPLAT_OAUTH_CLIENT_ID?.trim() && e.GENPLAT_OAUTH_CLIENT_SECRET?.trim()
        ? { clientId: e.GENPLAT_OAUTH_CLIENT_ID.trim(), clientSecret: e.GENPLAT_OAUTH_CLIENT_SECRET.trim() }
        : undefined,
    slack,
    delegation,
    people,
    ...(events ? { events } : {}),
    ...(metrics ? { metrics } : {}),
    ...(traces ? { traces } : {}),
    peopleFile: peopleFile ? resolve(peopleFile) : undefined,
    ...(reportReaders ? { reportReaders } : {}),
    logLevel: e.GENPLAT_LOG_LEVEL ?? 'info',
    consent: e.GENPLAT_CONSENT ?? 'any',
    outputDir: e.GENPLAT_OUTPUT_DIR ?? defaultOutputDir(),
    // 500 MB: a few minutes of 4K upscale output (spec: upscale up to 4K) with room; far below a disk.
    saveMaxBytes: (e.GENPLAT_SAVE_MAX_MB ?? 500) * 1024 * 1024,
    mediaHosts,
    files: {
      // Path-separated like PATH (`:` on POSIX, `;` on Windows): folder names may contain commas.
      inputDirs: (e.GENPLAT_INPUT_DIRS ?? '')
        .split(delimiter)
        .map((d) => d.trim())
        .filter(Boolean)
        .map((d) => resolve(d)),
      staging: e.GENPLAT_STAGING_BUCKET
        ? {
            bucket: e.GENPLAT_STAGING_BUCKET,
            endpoint: e.GENPLAT_STAGING_ENDPOINT || undefined,
            region: e.GENPLAT_STAGING_REGION || 'us-east-1',
            prefix: e.GENPLAT_STAGING_PREFIX ?? 'genplat-staging/',
            pathStyle: truthy(e.GENPLAT_STAGING_PATH_STYLE),
            // 1 hour: the platform fetches media when the job starts (seconds to minutes after the POST); a
            // presigned URL must outlive that, and no longer, since anyone holding it can read the file.
            ttlSeconds: e.GENPLAT_STAGING_TTL_S ?? 3600,
          }
        : undefined,
      stagedTtlSeconds: e.GENPLAT_STAGING_TTL_S ?? 3600,
      // Defaults and where their numbers come from: src/files/limits.ts.
      uploadLimits: {
        maxPendingPerCaller: e.GENPLAT_UPLOAD_MAX_PENDING ?? DEFAULT_UPLOAD_LIMITS.maxPendingPerCaller,
        maxInFlightPerCaller: e.GENPLAT_UPLOAD_MAX_INFLIGHT ?? DEFAULT_UPLOAD_LIMITS.maxInFlightPerCaller,
        idleTimeoutMs:
          e.GENPLAT_UPLOAD_IDLE_S !== undefined ? e.GENPLAT_UPLOAD_IDLE_S * 1000 : DEFAULT_UPLOAD_LIMITS.idleTimeoutMs,
      },
    },
    ...(e.GENPLAT_TEST_KILL_AT ? { testKillAt: e.GENPLAT_TEST_KILL_AT } : {}),
  };
}

/** The user's Downloads folder (every desktop OS has one), in a folder of ours. */
export function defaultOutputDir(): string {
  return join(homedir(), 'Downloads', 'genplat-mcp');
}

/**
 * `GENPLAT_MEDIA_HOSTS`: comma-separated https origins or host names (`cdn.example.com` → `https://cdn.example.com`,
 * `*.example.com` kept as a CSP wildcard). They go into a Content-Security-Policy, so anything else is refused.
 */
function parseMediaHosts(raw: string | undefined, problems: string[]): string[] {
  const out: string[] = [];
  for (const entry of list(raw)) {
    const withScheme = /^https?:\/\//i.test(entry) ? entry : `https://${entry}`;
    const m = /^(https?):\/\/(\*\.)?([a-z0-9-]+(\.[a-z0-9-]+)*)(:\d{1,5})?\/?$/i.exec(withScheme);
    if (!m) {
      problems.push(`GENPLAT_MEDIA_HOSTS: "${entry}" is not a host name or https origin`);
      continue;
    }
    out.push(`${m[1]!.toLowerCase()}://${m[2] ?? ''}${m[3]!.toLowerCase()}${m[5] ?? ''}`);
  }
  return out;
}
