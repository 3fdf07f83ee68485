/**
 * The configuration reference, one row per setting. The config table (docs/configuration.md) is generated from this
 * (scripts/generate-docs.ts) and checked in CI, so the docs cannot drift from what `config.ts` reads; `--help`
 * (src/cli-help.ts) prints the same rows.
 */
import { COMMANDS, type Command } from './config.js';

export interface ConfigDoc {
  env: string;
  flag?: string;
  meaning: string;
  default: string;
}

export const CONFIG_DOCS: ConfigDoc[] = [
  {
    env: 'GENPLAT_API_KEY',
    meaning: 'Platform API key. Sent only in the `X-Api-Key` header to `GENPLAT_BASE_URL`.',
    default: 'required unless `--sandbox`',
  },
  {
    env: 'GENPLAT_BASE_URL',
    meaning: 'Platform base URL, including its path prefix. https only (http allowed for loopback).',
    default: 'required unless `--sandbox`; no guessed default (a wrong host would receive the key)',
  },
  {
    env: 'GENPLAT_SANDBOX',
    flag: '--sandbox',
    meaning:
      'Run against the built-in simulator of the whole platform; no key needed, nothing real is charged. Its jobs, balance and uploads are kept in the state dir (`sandbox/`) across restarts.',
    default: 'off',
  },
  {
    env: '',
    flag: '--reset-sandbox',
    meaning:
      "With `--sandbox`: start with an empty sandbox (the simulator's saved jobs, balance, uploads and key, and the sandbox's job store).",
    default: 'off (the sandbox remembers)',
  },
  {
    env: 'GENPLAT_VENDORS',
    meaning: "Vendor names for the spec's `<vendorX>` placeholders, e.g. `C=seedance,F=veo`.",
    default: 'assumed: A=wan, C=seedance, D=grok, F=veo, G=gpt, I=nano-banana, K=ideogram; others unset',
  },
  {
    env: 'GENPLAT_CONFIRM',
    meaning: 'When to ask for consent: `always`, `above:N` (displayed credits), `never` (ceilings still apply).',
    default: '`always`',
  },
  {
    env: 'GENPLAT_MAX_CREDITS_PER_CALL',
    meaning: 'Hard ceiling per billable call, displayed credits; refused whatever the consent.',
    default: '2000',
  },
  {
    env: 'GENPLAT_MAX_CREDITS_PER_DAY',
    meaning: 'Hard ceiling per UTC day (from the job ledger), displayed credits.',
    default: '10000',
  },
  {
    env: 'GENPLAT_USER_MAX_CREDITS_PER_DAY',
    meaning:
      "HTTP mode: each caller's own ceiling per UTC day, displayed credits, counted like the account's and enforced in the same store transaction. The account ceiling still applies on top. See docs/teams-and-oauth.md.",
    default: 'unset: no per-user limit (only the account ceiling)',
  },
  {
    env: 'GENPLAT_USER_BUDGETS',
    meaning:
      'Per-caller overrides of `GENPLAT_USER_MAX_CREDITS_PER_DAY`, inline JSON `{"<caller id>": N}` (caller ids as `list_jobs` `spend.you.caller` and `audit export` show them; `0` = may not spend).',
    default: 'none',
  },
  {
    env: 'GENPLAT_MAX_CREDITS_PER_WEEK',
    meaning:
      'The account\'s ceiling per ISO week (from Monday 00:00 UTC), displayed credits, counted like the day\'s and enforced in the same store transaction. See docs/operate.md "Budgets".',
    default: 'unset: no weekly ceiling',
  },
  {
    env: 'GENPLAT_MAX_CREDITS_PER_MONTH',
    meaning:
      "The account's ceiling per calendar month (from the 1st 00:00 UTC), displayed credits, counted like the day's.",
    default: 'unset: no monthly ceiling',
  },
  {
    env: 'GENPLAT_BUDGETS',
    meaning:
      'The budgets file: JSON or YAML (`.yaml`/`.yml`) `{person: {day, week, month}, people: {"<caller id>": {…}}, teams: {"<team>": {…}}}` — every person\'s default limits, per-person overrides (per period named) and what each team\'s members may spend together, in displayed credits. Teams are the people file\'s `groups` and the OAuth groups claim. Checked at start and by `doctor`. See docs/operate.md "Budgets".',
    default: 'none',
  },
  {
    env: 'GENPLAT_PRICE_TABLE',
    meaning:
      'Operator price table for calls whose price the platform does not publish (gestures, family videos, catalog texts without a bound): a JSON file path or inline JSON `{"<tool>": N, "run_model:<model id>": N, "create_family_video:<model>": N}`, N = displayed credits per call, an upper bound. The most specific key wins. Such calls always need explicit consent.',
    default: 'unset: the per-call ceiling is quoted',
  },
  {
    env: 'GENPLAT_APPROVALS',
    meaning:
      "Approval policy: a `.json`, `.yaml` or `.yml` file of rules (a call's credits, an unbounded quote, the day's spend, a tool, a group → who must approve; never the requester). Checked at start and by `doctor`, each error naming the rule and field. See docs/approvals.md.",
    default: 'unset: no call waits for an approval',
  },
  {
    env: 'GENPLAT_STATE_DIR',
    flag: '--state-dir',
    meaning:
      'The SQLite job store `genplat.db` (jobs, used token nonces, consent key; docs/storage.md). Sandbox state goes in its `sandbox/` subfolder.',
    default:
      'OS data dir (`~/.local/share/genplat-mcp`, `~/Library/Application Support/genplat-mcp`, `%LOCALAPPDATA%\\genplat-mcp`)',
  },
  {
    env: 'GENPLAT_DATABASE_URL',
    meaning:
      'PostgreSQL store shared by several server instances (`postgres://user:pass@host/db`): ceilings, duplicate guard, single-use tokens and jobs across the fleet. Unset: SQLite in the state dir. For a fleet, connect as a runtime role that does not own the tables (`genplat-mcp db grant`, docs/storage.md).',
    default: 'unset (SQLite)',
  },
  {
    env: 'GENPLAT_DB_LOCK_TIMEOUT_MS',
    meaning:
      "PostgreSQL: how long a paid call waits for the account's admission lock; then it is refused unsent (retryable). Keep it above GENPLAT_DB_IDLE_TX_TIMEOUT_MS so a healthy instance outwaits a frozen one.",
    default: '8000',
  },
  {
    env: 'GENPLAT_DB_IDLE_TX_TIMEOUT_MS',
    meaning:
      'PostgreSQL: the server ends a session idle inside a transaction this long, releasing its locks: the most a frozen or partitioned instance can stall the others.',
    default: '5000',
  },
  {
    env: 'GENPLAT_DB_STATEMENT_TIMEOUT_MS',
    meaning: 'PostgreSQL: the longest any one statement may run (the client gives up 2 s later, for partitions).',
    default: '15000',
  },
  {
    env: 'GENPLAT_DB_CONNECT_TIMEOUT_MS',
    meaning: 'PostgreSQL: the longest opening a connection may take.',
    default: '5000',
  },
  {
    env: 'GENPLAT_TOOLSETS',
    flag: '--toolsets',
    meaning:
      'Comma list of toolsets to expose (`catalog,video,avatar,product,ads,library,gestures,enterprise,upscale,jobs,approvals`); `jobs` is always on; `approvals` (decide_approval) is listed only with `GENPLAT_APPROVALS`, never read-only.',
    default: 'all',
  },
  { env: 'GENPLAT_READ_ONLY', flag: '--read-only', meaning: 'Hide every billable tool.', default: 'off' },
  {
    env: 'GENPLAT_WEBHOOK_ALLOWLIST',
    meaning: 'Hosts an agent may name in `webhook_url` (exact host match).',
    default: 'empty (webhooks refused)',
  },
  {
    env: 'GENPLAT_ELICITATION',
    meaning:
      "`auto`: ask the user through the client's form when it declares elicitation; `off`: always use confirmation tokens. Set `off` for headless runs of Claude Code (`claude -p`) and Codex (`codex exec`): they declare forms but answer each at once unasked (`cancel` / `decline`), so paid calls would stop at a token or at `declined`.",
    default: '`auto`',
  },
  {
    env: 'GENPLAT_ELICITATION_SKIP_CLIENTS',
    meaning: 'Client names that declare elicitation but never show it; they get tokens instead.',
    default: '`claude-ai` (Claude Desktop)',
  },
  {
    env: 'GENPLAT_ELICITATION_TIMEOUT_MS',
    meaning: "How long to wait for a consent form before falling back to a token; below the host's ~60 s tool timeout.",
    default: '40000',
  },
  {
    env: 'GENPLAT_HTTP_TOKEN',
    meaning:
      'Static bearer token(s) for headless callers (bots, CI): comma-separate one per caller, each ≥ 16 characters, `name=<token>` to name a caller (owner `token:<name>`; an unnamed token keeps its 0.1 owner id). Each caller sees only its own jobs and confirmation tokens. Accepted at `/mcp` and at `/static/mcp` (no OAuth advertised there). HTTP mode refuses to start without a token, `GENPLAT_OAUTH_ISSUER` or `GENPLAT_SLACK_SIGNING_SECRETS`.',
    default: 'none',
  },
  {
    env: 'GENPLAT_HTTP_TOKEN_SCOPES',
    meaning:
      'What each named token of `GENPLAT_HTTP_TOKEN` may do (docs/operate.md "Scoped credentials"): comma-separated `<name>=read|quote|spend`, e.g. `planner=quote,viewer=read`. `read` lists and waits; `quote` also calls paid tools for their quote and consent card but can never admit one (no token, form, policy or approval decision of its is accepted); `spend` starts paid jobs. A token not listed spends.',
    default: 'every token: `spend`',
  },
  {
    env: 'GENPLAT_HTTP_DELEGATING',
    meaning:
      'Bot credentials that may act for people (docs/chat-bots.md "Identity"): comma-separated names of named tokens of `GENPLAT_HTTP_TOKEN` and `client:<OAuth client id>` entries. Such a bot names the person of each request in `params._meta["io.genplat/on_behalf_of"] = {"id": "<person>", "name"?: "<display name>"}`; the caller is then `<bot owner>:<person>` (`token:chatbot:alice`). Any other credential naming a person is refused (403).',
    default: 'none',
  },
  {
    env: 'GENPLAT_SLACK_SIGNING_SECRETS',
    meaning:
      'Slack identity auth (docs/chat-bots.md "Identity"): the Slack app\'s signing secret(s), comma-separated (a rotation, several apps). Set = requests carrying `X-Slack-Signature` are checked against them (HMAC over the raw body, ±5 min) and their caller is the Slack person of `params._meta.slack` (`slack:<team>:<user>`, `slack:<enterprise>:<user>` in Enterprise Grid); no bearer token needed. Needs `GENPLAT_SLACK_TEAMS`.',
    default: 'off',
  },
  {
    env: 'GENPLAT_SLACK_TEAMS',
    meaning:
      'The Slack workspaces (team ids `T…`) and Enterprise Grid orgs (`E…`) whose people may call, comma-separated; anyone else is refused (403).',
    default: 'none',
  },
  {
    env: 'GENPLAT_PEOPLE',
    meaning:
      'The people file: a JSON or YAML (`.yaml`/`.yml`) mapping of caller id → `{name, email, groups, also}` (`also`: the person\'s other caller ids, so the requester never approves under another id: docs/operate.md "One person, several ids"): `audit export` shows the name and e-mail beside each caller id (`owner_name`, `owner_email`); approval messages name people by it, else by what the request carried (OAuth `name`/`email` claims, a delegating bot\'s `name`). Checked at start and by `doctor`.',
    default: 'none',
  },
  {
    env: 'GENPLAT_REPORT_READERS',
    meaning:
      'HTTP mode: who reads every caller\'s spend report (`genplat://spend/report` and its View) instead of their own calls only: comma-separated caller ids (`token:lead`, `slack:T1:U2`) and teams (`group:finance`: a people-file group or a verified OAuth groups claim). Read-only: it grants no spending. docs/operate.md "The spend report".',
    default: 'none (each caller reads their own calls)',
  },
  {
    env: 'GENPLAT_EVENTS_URL',
    meaning:
      'Events to bots (docs/events.md): the one endpoint every event is POSTed to, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`). https, or plain http to a loopback address only. Needs `GENPLAT_EVENTS_SECRET`. Set = serving processes follow every open job so completions are announced with nobody reading.',
    default: 'off',
  },
  {
    env: 'GENPLAT_EVENTS_SECRET',
    meaning:
      "The endpoint's signing secret, `whsec_` + base64 of 24-64 random bytes (refused at start otherwise; kept out of logs).",
    default: 'none',
  },
  {
    env: 'GENPLAT_EVENTS_ENDPOINTS',
    meaning:
      'A JSON or YAML file listing endpoints `[{url, secret, callers?, types?}]`: `callers` = owner ids or prefixes ending in `*` (`token:bot:*`, `slack:T1:*`), `types` = event types; each endpoint gets the events it takes. Checked at start and by `doctor`.',
    default: 'none',
  },
  {
    env: 'GENPLAT_EVENTS_RETRY_FOR',
    meaning:
      'Seconds an undelivered event is retried (same `webhook-id`; backoff ≤ 60 s for the first hour, then up to 1 h) before it is given up and logged (`genplat-mcp events log`).',
    default: '259200 (3 days)',
  },
  {
    env: 'GENPLAT_METRICS_TOKEN',
    meaning:
      'HTTP mode: serves Prometheus metrics at `/metrics` to requests carrying `Authorization: Bearer <this token>` (401 otherwise; 404 when unset). At least 16 characters, and not one of the `GENPLAT_HTTP_TOKEN`s. Metrics, names and queries: docs/operate.md "Metrics".',
    default: 'off',
  },
  {
    env: 'OTEL_METRICS_EXPORTER',
    meaning:
      'Metrics over OTLP (docs/operate.md "Metrics"): `otlp` turns the push exporter on; `none` keeps it off even with an endpoint set. The exporter (OTLP over HTTP, JSON) reads the other `OTEL_EXPORTER_OTLP_*` variables (headers, timeout) itself.',
    default: 'off',
  },
  {
    env: 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
    meaning: 'The OTLP metrics endpoint (full URL, e.g. `http://127.0.0.1:4318/v1/metrics`); as above, metrics only.',
    default: 'none',
  },
  {
    env: 'OTEL_METRIC_EXPORT_INTERVAL',
    meaning: 'Milliseconds between two OTLP metric exports (1000-3600000).',
    default: '60000',
  },
  {
    env: 'GENPLAT_OAUTH_ISSUER',
    meaning:
      "HTTP mode: sign people in with OAuth 2.1. The issuer of the authorization server (someone else's: Auth0, Keycloak, WorkOS…; we never issue tokens), exactly as its tokens spell `iss`. Turns on protected resource metadata at `/.well-known/oauth-protected-resource[/mcp]`, `WWW-Authenticate` challenges, and the scopes `genplat:read` / `genplat:quote` / `genplat:spend`. A caller is the token's issuer + subject (owner `oidc:<16 hex>`).",
    default: 'unset (static tokens only)',
  },
  {
    env: 'GENPLAT_OAUTH_GROUPS_CLAIM',
    meaning:
      "HTTP mode with OAuth: the token claim that lists the caller's groups (a list of strings, or one space-separated string); each valid group name (1-64 letters, digits or . _ -) is one of the caller's teams for `GENPLAT_BUDGETS`, beside the people file's `groups`. Not read for a person a delegating bot names.",
    default: '`groups`',
  },
  {
    env: 'GENPLAT_OAUTH_RESOURCE',
    meaning:
      'Our canonical resource URL (RFC 8707/9728): the public URL of the `/mcp` endpoint, exactly as hosts connect to it. https (http only on loopback).',
    default: '`GENPLAT_PUBLIC_URL` + `/mcp`',
  },
  {
    env: 'GENPLAT_OAUTH_AUDIENCE',
    meaning:
      'The `aud` a token must carry to be accepted (audience binding); set it when the provider stamps an API identifier instead of the resource URL (Auth0 API identifier, Entra Application ID URI).',
    default: '`GENPLAT_OAUTH_RESOURCE`',
  },
  {
    env: 'GENPLAT_OAUTH_JWKS_URL',
    meaning: "Where the issuer's token-signing keys are (JWT access tokens).",
    default: "`jwks_uri` from the issuer's metadata",
  },
  {
    env: 'GENPLAT_OAUTH_INTROSPECTION_URL',
    meaning:
      'RFC 7662 introspection endpoint for opaque (non-JWT) access tokens; needs `GENPLAT_OAUTH_CLIENT_ID` and `GENPLAT_OAUTH_CLIENT_SECRET` (our confidential client at the issuer). A token is introspected once and remembered until its `exp` (a refused one for 10 s); see docs/security.md.',
    default: 'unset (JWT only)',
  },
  {
    env: 'GENPLAT_OAUTH_CLIENT_ID',
    meaning:
      "Our confidential client id at the issuer: for introspection, and for the approval page's sign-in (authorization code + PKCE; register `<GENPLAT_PUBLIC_URL>/approve/callback` as its redirect URI: docs/approvals-page.md).",
    default: 'unset',
  },
  {
    env: 'GENPLAT_OAUTH_CLIENT_SECRET',
    meaning: 'Its secret (kept out of logs like the API key).',
    default: 'unset',
  },
  {
    env: 'GENPLAT_HTTP_HOST',
    flag: '--host',
    meaning: 'HTTP bind address. Anything but loopback prints a loud warning.',
    default: '`127.0.0.1`',
  },
  { env: 'GENPLAT_HTTP_PORT', flag: '--port', meaning: 'HTTP port.', default: '8787' },
  {
    env: 'GENPLAT_HTTP_ALLOWED_ORIGINS',
    meaning: 'Browser origins allowed to call the HTTP endpoint (requests with any other `Origin` get 403).',
    default: 'none',
  },
  {
    env: 'GENPLAT_HTTP_ALLOWED_HOSTS',
    meaning:
      'Extra `Host` header names accepted (e.g. the public name behind a reverse proxy); others get 403 (DNS-rebinding protection).',
    default: 'the bind host, `localhost`, `127.0.0.1`, `[::1]`',
  },
  {
    env: 'GENPLAT_HTTP_MAX_INFLIGHT',
    meaning:
      'Most HTTP requests answered at once by this instance, all callers together (HTTP keeps no sessions; a 50 s `wait_for_jobs` is one request in flight); beyond it, 503 with `Retry-After`. `GENPLAT_HTTP_MAX_SESSIONS` (0.1) is read as this.',
    default: '100',
  },
  {
    env: 'GENPLAT_HTTP_MAX_INFLIGHT_PER_TOKEN',
    meaning:
      "Most HTTP requests in flight per caller (static token or signed-in person) on this instance; a caller's next one gets 503 while other callers are still served. The total cap still applies. `GENPLAT_HTTP_MAX_SESSIONS_PER_TOKEN` (0.1) is read as this.",
    default: '`GENPLAT_HTTP_MAX_INFLIGHT` ÷ (static tokens, + 10 with OAuth), rounded down (at least 1)',
  },
  {
    env: 'GENPLAT_HTTP_RATE_LIMIT',
    meaning: 'Requests per minute per token; beyond it, 429 with `Retry-After`.',
    default: '120',
  },
  {
    env: 'GENPLAT_PUBLIC_URL',
    meaning:
      'HTTP mode: the https URL under which this server is reachable from the internet. Set, it turns webhooks on: calls to endpoints that accept `webhook_url` (talking-actor, product-in-hand, content library, enterprise models that state support) where the agent gave none carry a per-job callback URL `<this>/hooks/<id>`, and a callback makes the server read that job at once, so waits end early. Polling stays the fallback; a callback is never trusted for status, outputs or charges. Without a staging bucket it also turns on self-served staging (`<this>/staged/…`, docs/files.md); upload links (`request_upload`) point here too.',
    default: 'unset',
  },
  {
    env: 'GENPLAT_CONSENT',
    meaning:
      '`human`: only a person confirms a paid call (a Confirm click in the App, or an elicitation form); a confirmation_token the model sends itself is refused. Needs a host that renders MCP Apps or elicitation forms (docs/apps.md). `any`: tokens too.',
    default: '`any`',
  },
  {
    env: 'GENPLAT_OUTPUT_DIR',
    meaning: 'Folder save_outputs writes into (stdio only); files never land outside it.',
    default: '`~/Downloads/genplat-mcp`',
  },
  { env: 'GENPLAT_SAVE_MAX_MB', meaning: 'Largest file save_outputs downloads, in MB.', default: '500' },
  {
    env: 'GENPLAT_MEDIA_HOSTS',
    meaning:
      "Comma-separated hosts (or https origins, `*.` wildcards allowed) the App's CSP lets videos, images and audio load from. The sandbox's own origin is added by itself.",
    default: 'none',
  },
  {
    env: 'GENPLAT_INPUT_DIRS',
    meaning:
      'Folders (path-separated like PATH) a local file path in a media field may name, when the client declares no MCP roots. Unset and no roots: local paths are refused.',
    default: 'none',
  },
  {
    env: 'GENPLAT_STAGING_BUCKET',
    meaning:
      'S3-compatible bucket local files are staged in for the platform to fetch (short-lived presigned URL, deleted after). Credentials: the AWS SDK default chain (env, profile, role). Unset: local files only for custom avatars, unless HTTP mode with `GENPLAT_PUBLIC_URL` serves staged files itself (docs/files.md).',
    default: 'none',
  },
  {
    env: 'GENPLAT_STAGING_ENDPOINT',
    meaning:
      'S3 endpoint for non-AWS stores (R2, MinIO, GCS interop), e.g. `https://<account>.r2.cloudflarestorage.com`.',
    default: 'AWS',
  },
  { env: 'GENPLAT_STAGING_REGION', meaning: 'Region of the staging bucket.', default: '`us-east-1`' },
  {
    env: 'GENPLAT_STAGING_PREFIX',
    meaning: 'Key prefix of staged objects in the bucket.',
    default: '`genplat-staging/`',
  },
  { env: 'GENPLAT_STAGING_PATH_STYLE', meaning: '`1`: path-style bucket URLs (MinIO, s3rver).', default: 'off' },
  {
    env: 'GENPLAT_STAGING_TTL_S',
    meaning:
      'Lifetime of a staged file and its URL, in seconds; deleted then at the latest. Also the lifetime of self-served staged files (HTTP + `GENPLAT_PUBLIC_URL`, no bucket).',
    default: '3600',
  },
  {
    env: 'GENPLAT_UPLOAD_MAX_PENDING',
    meaning:
      'HTTP: most unused, unexpired upload links (`request_upload`) one caller may hold; the next request is refused until one is used or expires (15 min).',
    default: '10',
  },
  {
    env: 'GENPLAT_UPLOAD_MAX_INFLIGHT',
    meaning:
      "HTTP: most upload bodies one caller may be sending to this instance at once; the next PUT gets 429 with `Retry-After` (other callers' uploads go on).",
    default: '3',
  },
  {
    env: 'GENPLAT_UPLOAD_IDLE_S',
    meaning:
      'HTTP: seconds an upload body may send nothing before its connection is closed and what it stored is deleted (a link not yet used stays usable).',
    default: '30',
  },
  { env: 'GENPLAT_LOG_LEVEL', meaning: 'stderr log level: `debug`, `info`, `warn`, `error`.', default: '`info`' },
  {
    env: 'OTEL_TRACES_EXPORTER',
    meaning:
      'OpenTelemetry traces (docs/operate.md "Traces"): `otlp` (OTLP over HTTP), `console` (one JSON line per span on stderr), `none`, or a comma list. The SDK is loaded only when traces are on.',
    default: 'off; `otlp` when an OTLP endpoint below is set',
  },
  {
    env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    meaning:
      'OTLP/HTTP receiver (collector, Jaeger, Tempo), e.g. `http://localhost:4318`; traces go to `<it>/v1/traces`, metrics to `<it>/v1/metrics`. Setting it turns traces on, and metrics unless `OTEL_METRICS_EXPORTER=none`. The exporters also read `OTEL_EXPORTER_OTLP_HEADERS` and `_TIMEOUT`.',
    default: 'unset',
  },
  {
    env: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    meaning: 'Full URL for traces only (used as given, no `/v1/traces` added); wins over the one above.',
    default: 'unset',
  },
  {
    env: 'OTEL_EXPORTER_OTLP_PROTOCOL',
    meaning:
      'Also `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`. Spans are sent as OTLP/HTTP JSON; `http/json` or `http/protobuf` are accepted, `grpc` is refused at start.',
    default: 'http/json',
  },
  {
    env: 'OTEL_SDK_DISABLED',
    meaning: '`true`: no traces and no metrics (neither OTLP nor `/metrics`), whatever else is set.',
    default: 'false',
  },
  { env: '', flag: '--http', meaning: 'Serve Streamable HTTP at `/mcp` instead of stdio.', default: 'stdio' },
];

/**
 * Flags that are not settings (they act on one run, or belong to one command) and per-command meanings that
 * differ from the server's (`sim --port`). `--help` looks a flag up here first, then in CONFIG_DOCS.
 */
export interface CliDoc {
  flag: string;
  commands: readonly Command[];
  meaning: string;
  default?: string;
}

export const CLI_DOCS: CliDoc[] = [
  { flag: '--help', commands: COMMANDS, meaning: 'Print this help and exit.' },
  { flag: '--version', commands: COMMANDS, meaning: 'Print the version and exit.' },
  {
    flag: '--port',
    commands: ['sim'],
    meaning: 'Port on 127.0.0.1.',
    default: "the last run's port when free, else a random free one",
  },
  {
    flag: '--state-dir',
    commands: ['sim'],
    meaning: 'State dir; the simulator keeps its jobs, balances, uploads and key in `sandbox/sim-cli.db` inside it.',
    default: 'as GENPLAT_STATE_DIR',
  },
  {
    flag: '--reset',
    commands: ['sim'],
    meaning: 'Start with an empty simulator: no jobs, a full balance, a new key.',
    default: 'off (the simulator remembers)',
  },
  {
    flag: '--state-dir',
    commands: ['audit', 'events'],
    meaning: 'State dir whose store is exported (a PostgreSQL store comes from GENPLAT_DATABASE_URL).',
    default: 'as GENPLAT_STATE_DIR',
  },
  {
    flag: '--format',
    commands: ['audit'],
    meaning: 'Output format: `csv` or `jsonl` (one JSON object per line).',
    default: 'csv',
  },
  {
    flag: '--since',
    commands: ['audit'],
    meaning: 'Only calls admitted at or after this ISO 8601 date or date-time.',
    default: 'every call',
  },
  {
    flag: '--state-dir',
    commands: ['report'],
    meaning: 'State dir whose store is read (a PostgreSQL store comes from GENPLAT_DATABASE_URL).',
    default: 'as GENPLAT_STATE_DIR',
  },
  {
    flag: '--sandbox',
    commands: ['report'],
    meaning: "Report on the sandbox's own store (`<state dir>/sandbox`), where `--sandbox` servers record their calls.",
    default: 'off: the real store',
  },
  {
    flag: '--since',
    commands: ['report'],
    meaning: 'Only calls admitted at or after this ISO 8601 date or date-time (UTC unless it names an offset).',
    default: 'every call',
  },
  {
    flag: '--until',
    commands: ['report'],
    meaning: 'Only calls admitted before this ISO 8601 date or date-time (exclusive; UTC unless it names an offset).',
    default: 'every call',
  },
  {
    flag: '--by',
    commands: ['report'],
    meaning: 'Group by `person`, `team`, `tool`, `day`, `week` (ISO, from Monday 00:00 UTC) or `month` (UTC).',
    default: 'person',
  },
  {
    flag: '--csv',
    commands: ['report'],
    meaning: 'CSV (RFC 4180) instead of the aligned table; the last line is the total.',
    default: 'off: an aligned table',
  },
  {
    flag: '--user',
    commands: ['audit'],
    meaning: 'Only this caller id (as shown in list_jobs `spend.you.caller`).',
    default: 'every caller',
  },
  {
    flag: '--sandbox',
    commands: ['audit', 'events'],
    meaning: "Export the sandbox's own store (`<state dir>/sandbox`), where `--sandbox` servers record their calls.",
    default: 'off: the real store',
  },
  {
    flag: '--sandbox',
    commands: ['install'],
    meaning: 'Write the entry `genplat-sandbox` that starts the server with --sandbox (no key, no credits).',
    default: 'off: the entry `genplat` for the real platform (needs GENPLAT_BASE_URL)',
  },
  {
    flag: '--print',
    commands: ['install'],
    meaning: 'Print the entry for the host and write nothing (the key is never printed).',
  },
  {
    flag: '--node',
    commands: ['install'],
    meaning: 'The Node.js (>= 22.13) the host starts the server with.',
    default: "the one running install when new enough, else this checkout's pinned one (node_modules/node/bin/node)",
  },
  {
    flag: '--config',
    commands: ['install'],
    meaning: "The config file to merge into instead of the host's user config (never one inside this checkout).",
    default: "the host's user config (docs/hosts.md)",
  },
  {
    flag: '--trust',
    commands: ['install'],
    meaning:
      'Let the host run this server\'s tools without its own per-call prompt (Gemini `trust: true`, needed for `gemini -p`; Codex `default_tools_approval_mode = "approve"`, needed for `codex exec`). The server still asks before spending credits.',
    default: 'off',
  },
  {
    flag: '--http',
    commands: ['install'],
    meaning:
      "Write the host's remote (Streamable HTTP) entry for our server already running at URL (its MCP endpoint, e.g. http://127.0.0.1:8787/mcp; plain http only to this machine) instead of a stdio one. The bearer token is never written: the entry references GENPLAT_HTTP_TOKEN in the host's own syntax (Codex bearer_token_env_var, VS Code a password prompt). Not with --sandbox, --headless or --node (the running server has its own settings). Claude Desktop has no such entry: it explains the options, exit 2.",
    default: 'off: a stdio entry',
  },
  {
    flag: '--headless',
    commands: ['install'],
    meaning:
      'Set GENPLAT_ELICITATION=off in the entry, for hosts run headless (`claude -p`, `codex exec`), which answer consent forms themselves: paid calls then ask with a confirmation token.',
    default: 'off',
  },
];
