/**
 * The approval page (issue 28 item 6, carrier c): `/approve/<approvalId>.<expiresAt>.<MAC>` (link.ts).
 *
 * GET the link: refused before any sign-in when the link is not ours, has expired, or the approval is unknown,
 * already decided or past its own expiry. Without a session for this approval → the OpenID provider's
 * authorization endpoint (code + PKCE S256, `state` and `nonce` tied to a signed flow cookie: session.ts).
 * `/approve/callback` exchanges the code, verifies the ID token, and makes the approver's caller id exactly as the
 * MCP endpoint does, `oidcOwner(iss, sub)`; a signed session cookie for this approval, then back to the link. With
 * a session: the consent card, who asked, who may approve, until when, and Approve / Decline (a POST form with a
 * token bound to the session and the approval) for a listed approver who is not the requester.
 *
 * POST the link: session + form token checked, the approval read again — a decided or expired one is refused
 * WITHOUT calling the desk — then `desk.decide` (the desk owns the rule) and the session cookie is cleared: one
 * decision per sign-in. Nothing here is held in memory, so any instance of a fleet serves any step.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { oidcOwner } from '../../auth/identity.js';
import type { Logger } from '../../log.js';
import type { ExtraRoute } from '../../transports/http.js';
import { type ApprovalDesk, mayDecide } from './desk.js';
import { APPROVE_PREFIX, openApprovalLink } from './link.js';
import { relyingParty, SignInError } from './oidc.js';
import { approvalPage, type Html, messagePage } from './page.js';
import {
  cookieOf,
  FLOW_COOKIE,
  FLOW_TTL_MS,
  formToken,
  formTokenValid,
  idNonce,
  newFlow,
  newSession,
  openFlow,
  openSession,
  pkceVerifier,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  setCookie,
} from './session.js';
import { PAGE } from './wording.js';

export const APPROVE_CALLBACK_PATH = '/approve/callback';
/** The form holds two short fields. */
const MAX_FORM_BYTES = 4096;

export interface ApprovalPageDeps {
  desk: ApprovalDesk;
  /** The store's consent key (`store.consentKey()`), the one signer's root: shared by every instance. */
  key: () => Promise<Buffer>;
  /** GENPLAT_PUBLIC_URL: the redirect URI is `<publicUrl>/approve/callback`; https makes the cookies Secure. */
  publicUrl: string;
  /** The OpenID provider (GENPLAT_OAUTH_ISSUER) and our confidential client there (GENPLAT_OAUTH_CLIENT_ID/SECRET). */
  oidc: { issuer: string; clientId: string; clientSecret: string };
  log: Logger;
  now?: () => number;
  /** For the provider's endpoints (tests: default global fetch). */
  fetch?: typeof fetch;
}

function send(res: ServerResponse, status: number, page: Html, cookies: string[] = []): true {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': page.csp,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    ...(cookies.length > 0 ? { 'set-cookie': cookies } : {}),
  });
  res.end(page.html);
  return true;
}

function redirect(res: ServerResponse, location: string, cookies: string[]): true {
  res.writeHead(303, {
    location,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'set-cookie': cookies,
  });
  res.end();
  return true;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim();
  if (type !== 'application/x-www-form-urlencoded') return undefined;
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return undefined;
    parts.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(parts).toString('utf8'));
}

/** Mount with the HTTP server's `routes` (src/transports/http.ts): answers every path under `/approve/`. */
export function approvalPageRoute(deps: ApprovalPageDeps): ExtraRoute {
  const now = deps.now ?? Date.now;
  const { desk, log } = deps;
  const base = deps.publicUrl.replace(/\/+$/, '');
  const secure = base.startsWith('https:');
  // Redacted from every log line of the process from here on (src/log.ts), whatever logs it.
  log.addSecret(deps.oidc.clientSecret);
  const rp = relyingParty(
    { ...deps.oidc, redirectUri: `${base}${APPROVE_CALLBACK_PATH}` },
    deps.fetch ?? ((input, init) => fetch(input, init)),
  );
  const clearSession = setCookie(SESSION_COOKIE, '', 0, secure);

  return async (req, res, path) => {
    if (!path.startsWith(APPROVE_PREFIX)) return false;
    try {
      if (path === APPROVE_CALLBACK_PATH) {
        if (req.method !== 'GET') return methodNotAllowed(res);
        return await callback(req, res);
      }
      if (req.method === 'GET') return await show(req, res, path);
      if (req.method === 'POST') return await decide(req, res, path);
      return methodNotAllowed(res);
    } catch (err) {
      // The desk or the key failed: nothing decided. Only the error's name is logged (a message may quote input).
      log.warn('approval page failed', { path: APPROVE_PREFIX, error: (err as Error).name });
      if (res.headersSent) return true;
      return send(res, 503, messagePage(PAGE.unavailable));
    }
  };

  function methodNotAllowed(res: ServerResponse): true {
    res.writeHead(405, { allow: 'GET, POST' });
    res.end();
    return true;
  }

  /** The link's approval while a decision is still possible, else the page that says why not (already sent). */
  async function pending(res: ServerResponse, path: string, key: Buffer) {
    const target = openApprovalLink(path, key, now());
    if (!target) return void send(res, 404, messagePage(PAGE.notALink));
    if (target.expired) return void send(res, 410, messagePage(PAGE.expired));
    const view = await desk.show(target.approvalId);
    if (!view) return void send(res, 404, messagePage(PAGE.unknown));
    if (view.state !== 'pending') return void send(res, 409, messagePage(PAGE.decided(view.state)));
    if (view.expiresAt <= now()) return void send(res, 410, messagePage(PAGE.expired));
    return { target, view };
  }

  async function show(req: IncomingMessage, res: ServerResponse, path: string): Promise<true> {
    const key = await deps.key();
    const open = await pending(res, path, key);
    if (!open) return true;
    const { target, view } = open;
    const session = openSession(key, cookieOf(req.headers.cookie, SESSION_COOKIE), target.approvalId, now());
    if (!session) {
      const { flow, cookie } = newFlow(key, target.token, now());
      let location: string;
      try {
        location = await rp.authorizationUrl({
          state: flow.r,
          nonce: idNonce(key, flow.r),
          verifier: pkceVerifier(key, flow.r),
        });
      } catch (err) {
        log.warn('approval page: the identity provider is unreachable', { error: (err as Error).message });
        return send(res, 503, messagePage(PAGE.unavailable));
      }
      return redirect(res, location, [setCookie(FLOW_COOKIE, cookie, FLOW_TTL_MS, secure)]);
    }
    const me = { id: session.approver, name: session.name };
    if (me.id === view.requester.id) return send(res, 200, approvalPage({ view, signedIn: me, note: PAGE.requester }));
    // An unlisted person learns nothing of the request (the card may hold private text).
    if (!mayDecide(view, me.id)) return send(res, 403, messagePage(PAGE.unlisted));
    return send(res, 200, approvalPage({ view, signedIn: me, formToken: formToken(key, session) }));
  }

  async function callback(req: IncomingMessage, res: ServerResponse): Promise<true> {
    const key = await deps.key();
    const query = new URL(req.url ?? '', 'http://x').searchParams;
    const flow = openFlow(key, cookieOf(req.headers.cookie, FLOW_COOKIE), now());
    const clearFlow = setCookie(FLOW_COOKIE, '', 0, secure);
    if (!flow || query.get('state') !== flow.r) return send(res, 400, messagePage(PAGE.flowLost), [clearFlow]);
    const target = openApprovalLink(`${APPROVE_PREFIX}${flow.link}`, key, now());
    if (!target) return send(res, 400, messagePage(PAGE.flowLost), [clearFlow]);
    if (target.expired) return send(res, 410, messagePage(PAGE.expired), [clearFlow]);
    const error = query.get('error');
    const code = query.get('code');
    if (error || !code) {
      const said = error && /^[a-z_]{1,40}$/.test(error) ? error : 'no authorization code';
      return send(res, 400, messagePage(PAGE.signInFailed(`the identity provider answered ${said}`)), [clearFlow]);
    }
    let signedIn: Awaited<ReturnType<typeof rp.signIn>>;
    try {
      signedIn = await rp.signIn({ code, verifier: pkceVerifier(key, flow.r), nonce: idNonce(key, flow.r) });
    } catch (err) {
      const why = err instanceof SignInError ? err.message : 'the identity provider could not be reached';
      log.warn('approval page sign-in failed', { approval: target.approvalId, reason: why });
      return send(res, 400, messagePage(PAGE.signInFailed(why)), [clearFlow]);
    }
    const approver = oidcOwner(signedIn.iss, signedIn.sub);
    log.info('approval page sign-in', { approval: target.approvalId, approver });
    const session = newSession(
      key,
      { approver, name: signedIn.name ?? signedIn.email, approvalId: target.approvalId },
      now(),
    );
    return redirect(res, `${APPROVE_PREFIX}${flow.link}`, [
      clearFlow,
      setCookie(SESSION_COOKIE, session, SESSION_TTL_MS, secure),
    ]);
  }

  async function decide(req: IncomingMessage, res: ServerResponse, path: string): Promise<true> {
    const key = await deps.key();
    const target = openApprovalLink(path, key, now());
    if (!target) return send(res, 404, messagePage(PAGE.notALink));
    const session = openSession(key, cookieOf(req.headers.cookie, SESSION_COOKIE), target.approvalId, now());
    if (!session) return send(res, 401, messagePage(PAGE.sessionLost));
    const form = await readForm(req);
    const decision = form?.get('decision');
    if (
      !form ||
      !formTokenValid(key, session, form.get('form_token')) ||
      (decision !== 'approve' && decision !== 'decline')
    )
      return send(res, 403, messagePage(PAGE.badForm));
    // Read again: a decided or expired approval is refused here, without a second call to the desk.
    const open = await pending(res, path, key);
    if (!open) return true;
    const outcome = await desk.decide(
      target.approvalId,
      { id: session.approver, name: session.name, carrier: 'page' },
      decision,
    );
    log.info('approval page decision', {
      approval: target.approvalId,
      approver: session.approver,
      decision,
      recorded: outcome.ok,
    });
    if (!outcome.ok) return send(res, 403, messagePage(PAGE.refused(outcome.reason)), [clearSession]);
    return send(res, 200, messagePage(decision === 'approve' ? PAGE.approved : PAGE.declined), [clearSession]);
  }
}
