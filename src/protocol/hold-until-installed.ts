/**
 * The bundled bin's stdio server answers a host's first requests (initialize / server/discover, ping,
 * logging/setLevel, tools/list from the build-time list) before its tools, resources, prompts and task
 * handlers are loaded (src/server-deferred.ts). The first request of any other method starts loading them; it
 * and every message after it wait, in arrival order, and reach the SDK only once everything is registered. So
 * the SDK dispatches each request exactly as on a server built whole: its method gates (the Tasks names a
 * 2025 connection accepts only once registered), input validation and errors are its own, and a client
 * can never see a missing tool or a "Method not found" that a fully built server would not give.
 *
 * The SDK has no public hook before dispatch: this wraps the Protocol's `_onrequest` / `_onnotification`
 * (SDK 2.4, documented as overridable for subclasses) on the instance, and throws at start if they are gone.
 */
import type { McpServer } from '@modelcontextprotocol/server';

/** What a server built without its handlers answers exactly as a whole one does. */
export const SHELL_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'server/discover',
  'ping',
  'logging/setLevel',
  'tools/list',
]);

type Dispatch = (message: { method: string }, extra?: unknown) => void;
interface Dispatcher {
  _onrequest: Dispatch;
  _onnotification: Dispatch;
}

/**
 * Holds `server`'s inbound requests and notifications from the first request outside SHELL_METHODS until
 * `install` resolves, then delivers them in order. `onFailure` gets an install that rejected (nothing held is
 * answered: the caller stops the process, as a failed start would).
 * @throws Error when the SDK's dispatch methods are not where SDK 2.4 has them.
 */
export function holdUntilInstalled(
  server: McpServer,
  install: () => Promise<void>,
  onFailure: (err: unknown) => void,
): void {
  const protocol = server.server as unknown as Dispatcher;
  const onrequest = protocol._onrequest;
  const onnotification = protocol._onnotification;
  if (typeof onrequest !== 'function' || typeof onnotification !== 'function') {
    throw new Error('deferred start: the SDK dispatch methods to wrap were not found (SDK changed?)');
  }
  let held: (() => void)[] | undefined;
  const release = () => {
    protocol._onrequest = onrequest;
    protocol._onnotification = onnotification;
    const queue = held ?? [];
    held = undefined;
    for (const deliver of queue) deliver();
  };
  protocol._onrequest = (message, extra) => {
    if (held === undefined && SHELL_METHODS.has(message.method)) return onrequest.call(protocol, message, extra);
    if (held === undefined) {
      held = [];
      install().then(release, onFailure);
    }
    held.push(() => onrequest.call(protocol, message, extra));
  };
  protocol._onnotification = (message, extra) => {
    // Before anything is held nothing needs ordering; after, a notification (a cancel, say) follows its request.
    if (held === undefined) return onnotification.call(protocol, message, extra);
    held.push(() => onnotification.call(protocol, message, extra));
  };
}
