/**
 * `genplat-mcp --http`: the shared parts (one ledger, one platform client, one poller, one catalog) plus a
 * stateless Streamable HTTP listener that builds one MCP server per request for the authenticated caller.
 */
import { ALL_TOOLS } from '../../tools/index.js';
import { CAMPAIGN_ITEM_SPECS } from '../../tools/video/create-campaign.js';
import { approvalPageRoute } from '../approvals/page/route.js';
import { approvalPageSettings } from '../approvals/page/settings.js';
import type { StoreApprovalDesk } from '../approvals/store-desk.js';
import { createTokenVerifier } from '../auth/token-verifier.js';
import { createCatalog } from '../catalog.js';
import { createPlatformClient } from '../client/index.js';
import type { Config } from '../config.js';
import { type BillableToolSpec, isBundle, type PaidToolSpec } from '../define-tool.js';
import { ConfigurationError } from '../errors.js';
import { type EventsRuntime, startEvents } from '../events/start.js';
import { finalJobCleanup } from '../files/files-deps.js';
import { fileServices, sweepBlobs } from '../files/http-files.js';
import { stagedRoute } from '../files/staged-route.js';
import { uploadRoute } from '../files/upload-route.js';
import { setTrustedMediaOrigins } from '../guards/url.js';
import { createFollower } from '../jobs/follower.js';
import { createPoller } from '../jobs/poller.js';
import type { JobStore } from '../jobs/store.js';
import { stepReached } from '../kill-steps.js';
import { type Logger, registerSecret } from '../log.js';
import { startOutboxSweep } from '../paid/outbox-sweep.js';
import { TOKEN_TTL_MS } from '../paid/token.js';
import { describePerson } from '../people/directory.js';
import { consentStateCodec } from '../protocol/request-state.js';
import { buildServer } from '../server.js';
import type { Simulator } from '../sim/index.js';
import { type SandboxSimulator, startSandbox } from '../sim/sandbox.js';
import { openConfiguredStore } from '../store/index.js';
import { openPubSub, type PubSub } from '../store/pubsub.js';
import { metricsRoute } from '../telemetry/metrics-route.js';
import { startMetrics } from '../telemetry/metrics-start.js';
import { timedStore } from '../telemetry/metrics-store.js';
import { stopTracing } from '../telemetry/traces.js';
import { callbackUrl as makeCallbackUrl } from '../webhooks/callback-url.js';
import { type JobHints, pubSubHints } from '../webhooks/hints.js';
import { webhookReceiver } from '../webhooks/receiver.js';
import { changePublisher } from './change-events.js';
import { pubSubEventBus } from './event-bus.js';
import { type HttpServerHandle, startHttpServer } from './http.js';
import { isLoopbackBind } from './http-guards.js';
import { ownerFilteredBus, ownsJobUri } from './listen-owner.js';

/**
 * Every tool that sends one platform request (a campaign's item tools and every single paid tool): what the
 * outbox sweep sends a queued or unheld item with (a held single call is a bundle of one).
 */
const SENDING_SPECS = new Map<string, BillableToolSpec<never>>(
  ALL_TOOLS.filter((t): t is PaidToolSpec => 'billable' in t && t.billable !== undefined)
    .filter((t) => !isBundle(t))
    .map((t) => [t.name, t as BillableToolSpec<never>]),
);

const say = (line: string) => process.stderr.write(`${line}\n`);

export interface HttpRuntime {
  http: HttpServerHandle;
  /** Messages between the instances of a fleet (PostgreSQL LISTEN/NOTIFY; in-process with SQLite). */
  pubsub: PubSub;
  sim: Simulator | undefined;
  /** The job store this instance serves (tests read what was recorded without a tool call). */
  jobs: JobStore;
  /** Runs this instance's outbox sweep now (held approvals included); what its timer does every 5 s. */
  sweep(): Promise<number>;
  /** The approval desk of this instance (the page and decide_approval decide through it; tests mount the page). */
  desk: StoreApprovalDesk;
  /** Events to bots (GENPLAT_EVENTS_*): the delivery worker and the follower; undefined when off. */
  events: EventsRuntime | undefined;
  /** Closes the listener and what is in flight, then the poller, client, ledger and simulator. */
  close(): Promise<void>;
}

/**
 * Starts everything. The caller installs signal handlers (see `serveHttp`).
 * @throws ConfigurationError without a bearer token, or when the key/base URL are missing.
 */
/** Test hooks: a fast poller (sim 'test' jobs finish in ~20 ms) and a movable clock for expiry and rates. */
export interface HttpRuntimeHooks {
  pollIntervalMs?: number;
  now?: () => number;
  /**
   * Tests and the bench only: webhooks on with this listener's own loopback origin as the callback base, for a
   * simulator started with `allowLoopbackWebhooks`. Production takes the base from GENPLAT_PUBLIC_URL, which
   * the config accepts only as https.
   */
  loopbackWebhooks?: boolean;
  /**
   * The cross-instance "job changed" channel for webhook hints (default: in-process only). THE FLEET'S
   * PostgreSQL LISTEN/NOTIFY PUB/SUB PLUGS IN HERE (see src/webhooks/hints.ts).
   */
  hints?: JobHints;
  /**
   * Tests and the bench only: self-served staging on with this listener's loopback origin as the public base
   * (GENPLAT_PUBLIC_URL must be https), for a simulator started with `fetchMedia`.
   */
  loopbackStaging?: boolean;
  /** Tests only: the upload links' lifetime (default UPLOAD_LINK_TTL_MS). */
  uploadLinkTtlMs?: number;
  /** Tests and the bench only: the event worker's round interval (default 500 ms). */
  eventsTickMs?: number;
}

export async function startHttpRuntime(
  config: Config,
  log: Logger,
  hooks: HttpRuntimeHooks = {},
): Promise<HttpRuntime> {
  if (config.http.tokens.length === 0 && !config.oauth && !config.slack) {
    // One line (the bin prints each problem as one): what is missing, and how to make a token.
    throw new ConfigurationError([
      "GENPLAT_HTTP_TOKEN is required with --http (or GENPLAT_OAUTH_ISSUER for OAuth): set it to a random 16+ character value, e.g. node -e \"console.log(require('node:crypto').randomBytes(32).toString('base64url'))\"",
    ]);
  }
  for (const t of config.http.tokens) registerSecret(t);
  for (const s of config.slack?.signingSecrets ?? []) registerSecret(s);
  if (config.oauth?.introspection) registerSecret(config.oauth.introspection.clientSecret);

  const steps: (() => Promise<unknown> | unknown)[] = [];
  const closeAll = async () => {
    // Each step is independent: one failing must not keep the ledger or the simulator open.
    for (const step of steps.reverse()) {
      try {
        await step();
      } catch (err) {
        log.warn('error during shutdown', { error: String(err) });
      }
    }
  };
  try {
    let sim: SandboxSimulator | undefined;
    let { apiKey, baseUrl } = config;
    if (config.sandbox) {
      sim = await startSandbox(config, log);
      steps.push(() => sim?.close());
      apiKey = sim.apiKey;
      baseUrl = sim.baseUrl;
      setTrustedMediaOrigins([sim.origin]);
      log.info(`SANDBOX: using the built-in simulator at ${sim.baseUrl}; no real credits are spent`);
    }
    if (!apiKey || !baseUrl) throw new ConfigurationError(['GENPLAT_API_KEY and GENPLAT_BASE_URL are required']);
    log.addSecret(apiKey);

    // Metrics (issue 30): the SDK loads only when configured; the store is timed only then.
    const telemetry = await startMetrics(config, log);
    if (telemetry) steps.push(() => telemetry.close());
    const jobs = timedStore(await openConfiguredStore(config, log, { spool: true }));
    log.info(`job store: ${jobs.description}`);
    steps.push(() => jobs.close());
    // Steps run last-pushed first: the metrics' last export reads its gauges from the store, so before it closes.
    if (telemetry) steps.push(() => telemetry.close());
    telemetry?.observeStore(jobs);
    const client = createPlatformClient({ baseUrl, apiKey, vendors: config.vendors, logger: log });
    steps.push(() => client.close());
    // Shared by every session: one status read per job per interval however many callers wait on it.
    const interval = hooks.pollIntervalMs;
    const poller = createPoller({
      client,
      jobs,
      log,
      onFinal: finalJobCleanup(config, log),
      ...(interval !== undefined ? { intervalMs: { min: interval, max: interval } } : {}),
    });
    steps.push(() => poller.close());
    // Issue 29 item 2: every open job of a listening owner (listen stream, task) is read at the poller's pace.
    const follower = createFollower({ store: jobs, poller, log });
    steps.push(() => follower.close());
    // On the runtime's clock: tests move it past the catalog's cache to see a price change (re-pricing).
    const catalog = createCatalog(client, hooks.now ? { now: hooks.now } : {});
    // Change events for 2026-07-28 `subscriptions/listen` streams, shared by every instance on the database.
    const pubsub = await openPubSub(config, log);
    steps.push(() => pubsub.close());
    const bus = pubSubEventBus(pubsub, log);
    steps.push(() => bus.close());

    // Webhooks (issue 11 item 5): our callback URL on endpoints that accept one, and its receiver.
    // Hints from a callback that landed on any instance wake this instance's waiters too.
    const hints = hooks.hints ?? pubSubHints(pubsub, log);
    steps.push(hints.subscribe((key) => poller.wake(key)));
    let consentKey: Promise<Buffer> | undefined;
    const key = () => {
      // The key never changes once created; a failed read is not remembered (the next call tries again).
      consentKey ??= jobs.consentKey().catch((err) => {
        consentKey = undefined;
        throw err;
      });
      return consentKey;
    };
    // The loopback base is known once the listener has its port (set below, before any request is served).
    let callbackBase = config.publicUrl;
    const webhooksOn = callbackBase !== undefined || hooks.loopbackWebhooks === true;
    const callbackUrl = webhooksOn
      ? async (ledgerId: string) => {
          if (!callbackBase) throw new Error('callback base URL not known yet');
          return makeCallbackUrl(callbackBase, ledgerId, await key());
        }
      : undefined;

    // One codec for every per-request server: keyed from the store, so every instance of a fleet verifies it.
    const consentState = consentStateCodec(() => jobs.consentKey(), TOKEN_TTL_MS);
    // Files (issue 22): uploads and self-served staging live in the shared store, so any instance serves them.
    // The listener's own origin is known once it listens (set below, before any request is served).
    let ownOrigin = '';
    const nowMs = hooks.now ?? Date.now;
    const blobs = jobs.blobs?.();
    // The sandbox serves its own staged files to its simulator over loopback (issue 29 item 7): local files and
    // uploads work with no bucket and no public URL. Only on a loopback or wildcard bind (127.0.0.1 reaches it).
    const sandboxStaging = sim !== undefined && !config.publicUrl && sandboxCanStage(config.http.host);
    let loopbackOrigin = '';
    const files = blobs
      ? fileServices(config, blobs, key, () => ownOrigin, {
          ...hooks,
          now: nowMs,
          loopbackStaging: hooks.loopbackStaging === true || sandboxStaging,
          ...(sandboxStaging ? { loopbackOrigin: () => loopbackOrigin } : {}),
        })
      : undefined;
    // Campaign items admitted but not sent (an instance stopped mid-campaign) are sent from here on, and held
    // requests once approved (issue 28 item 5: the sweep's `approvals`, whichever instance took the decision).
    const campaigns = startOutboxSweep({
      config,
      client,
      jobs,
      log,
      catalog,
      poller,
      itemSpec: (tool) => CAMPAIGN_ITEM_SPECS.get(tool) ?? (SENDING_SPECS.get(tool) as never),
      onStep: stepReached(config.testKillAt),
      files,
    });
    steps.push(async () => campaigns.close());
    // Events to bots (issue 29): delivered from every serving instance (one at a time per event, by lease), and
    // every open job followed so its end is announced with nobody reading.
    const events = config.events?.endpoints.length
      ? startEvents({
          events: config.events,
          jobs,
          poller,
          log,
          now: hooks.now,
          tickMs: hooks.eventsTickMs,
          onStep: stepReached(config.testKillAt),
        })
      : undefined;
    if (events) steps.push(() => events.close());
    const fileRoutes = blobs
      ? [
          stagedRoute({ blobs, key, log, now: nowMs }),
          uploadRoute({ blobs, key, log, now: nowMs, limits: config.files.uploadLimits }),
        ]
      : [];
    // The signed approval page (docs/approvals-page.md): on with GENPLAT_PUBLIC_URL and an OpenID client.
    const page = approvalPageSettings(config);
    const pageRoutes = page.on
      ? [approvalPageRoute({ desk: campaigns.desk, key, publicUrl: page.publicUrl, oidc: page.oidc, log, now: nowMs })]
      : [];
    if (config.approvals && !page.on) log.info(`approval page off: ${page.why}`);
    // Listen streams hear "updated" only for their caller's jobs (the SDK's router filters by URI alone), and while
    // one is open every open job of its caller is followed, so it hears them finish with nobody reading them.
    const listenBus = ownerFilteredBus(bus, (owner, uri) => ownsJobUri(jobs, owner, uri), log, follower.follow);
    const http = await startHttpServer({
      ...config.http,
      log,
      ...(hooks.now ? { now: hooks.now } : {}),
      routes: [
        ...(webhooksOn
          ? [webhookReceiver({ jobs, key, poller, hints, log, ...(hooks.now ? { now: hooks.now } : {}) })]
          : []),
        ...fileRoutes,
        ...pageRoutes,
        ...(telemetry?.scrape && config.metrics?.token ? [metricsRoute(config.metrics.token, telemetry.scrape)] : []),
      ],
      bus: listenBus,
      ...(config.oauth
        ? {
            oauth: {
              config: config.oauth,
              verifier: createTokenVerifier({ oauth: config.oauth, ...(hooks.now ? { now: hooks.now } : {}) }),
            },
          }
        : {}),
      ...(config.slack ? { slack: config.slack } : {}),
      delegation: config.delegation,
      buildServer: (owner, era, names, access) =>
        buildServer({
          access,
          person: describePerson(config.people, owner, names),
          config,
          client,
          jobs,
          poller,
          follower,
          catalog,
          owner,
          log,
          consentState,
          perRequest: true,
          listenStreams: era === 'modern',
          onApprovalDecided: campaigns.approvals.onDecided,
          ...(callbackUrl ? { callbackUrl } : {}),
          ...(files ? { files } : {}),
        }).server,
    });
    steps.push(() => http.close());
    ownOrigin = new URL(http.url).origin;
    if (sandboxStaging) {
      loopbackOrigin = isLoopbackBind(config.http.host) ? ownOrigin : `http://127.0.0.1:${http.port}`;
      sim?.allowStagingOrigin(loopbackOrigin);
      log.info(`SANDBOX: local files and uploads are staged at ${loopbackOrigin}/staged/ for the simulator`);
    }
    if (blobs) steps.push(sweepBlobs(blobs, nowMs, log));
    if (hooks.loopbackWebhooks && !config.publicUrl) callbackBase = `http://127.0.0.1:${http.port}`;
    if (webhooksOn) log.info(`webhooks on: job callbacks to ${callbackBase}/hooks/… end waits early`);
    // A job this instance's poller saw change is news for listen streams on every instance. Its first read here
    // is not (the job may have been read elsewhere long ago), unless it is already terminal.
    // A job this instance's poller saw change is news for listen streams on every instance (with its progress).
    steps.push(poller.onChange(changePublisher(jobs, (event) => listenBus.publish(event), log)));

    if (!isLoopbackBind(config.http.host)) {
      for (const line of [
        '',
        '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
        `!! WARNING: genplat-mcp is listening on ${config.http.host}, reachable from other machines.`,
        '!! Anyone holding a bearer token can spend credits within the ceilings. Put a TLS-terminating proxy in',
        '!! front (the token is plain text over http) and set GENPLAT_HTTP_ALLOWED_HOSTS to its host name.',
        '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
        '',
      ])
        say(line);
    }
    const auth = [
      `${config.http.tokens.length} static token(s)${config.http.tokens.length > 0 ? `, also at ${http.staticUrl}` : ''}`,
      ...(config.oauth ? [`OAuth from ${config.oauth.issuer} for ${config.oauth.resource}`] : []),
      ...(config.slack ? [`Slack identity auth for ${config.slack.teams.join(', ')}`] : []),
    ].join('; ');
    log.info(`ready on ${http.url} (${auth}; state dir ${config.stateDir})`);
    return { http, pubsub, sim, jobs, sweep: () => campaigns.sweep(), desk: campaigns.desk, events, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/**
 * The bin's `--http` branch: runs until SIGINT/SIGTERM. SIGHUP keeps its default (a handler would undo `nohup`,
 * which starts us with SIGHUP ignored); the store survives an abrupt end (invariant 3).
 */
export async function serveHttp(config: Config, log: Logger): Promise<void> {
  const rt = await startHttpRuntime(config, log);
  let stopping = false;
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`shutting down (${why})`);
    await rt.close();
    // The spans of the last requests reach the collector (a no-op while traces are off).
    await stopTracing().catch(() => {});
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void shutdown(signal));
}

/** A sandbox listening here is reached at 127.0.0.1 by its simulator: a loopback or every-address bind. */
function sandboxCanStage(host: string): boolean {
  return isLoopbackBind(host) || ['0.0.0.0', '::', '[::]'].includes(host);
}
