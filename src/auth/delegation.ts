/**
 * Delegation (issue 28 item 2): a bot credential the operator marked as delegating may name, per request, the
 * person it acts for (`params._meta["io.genplat/on_behalf_of"] = {id, name?}`); the caller becomes that person
 * inside the bot's own namespace, `<bot owner>:<id>` (`token:chatbot:alice`). Marked in `GENPLAT_HTTP_DELEGATING`:
 * named static tokens by name, OAuth clients as `client:<client id>` (src/config.ts).
 *
 * Refused with 403, before any server is built: a credential not marked so that names a person, an id that is not
 * a plain person id (no `:`, so never `slack:…`, `oidc:…` or another bot's namespace), a name in a batch. A request
 * of a delegating bot that names nobody is the bot itself. Nothing is remembered between requests.
 */
import type { AuthInfo } from '@modelcontextprotocol/server';
import { type CallerExtra, delegatedOwner, ownerOf } from './identity.js';
import { ON_BEHALF_OF_KEY, onBehalfOf } from './request-person.js';
import type { IdentityVerdict } from './slack-auth.js';

export interface DelegationConfig {
  /** Owner ids of delegating static tokens (`token:<name>`). */
  owners: string[];
  /** OAuth client ids whose tokens may delegate. */
  clientIds: string[];
}

function delegates(config: DelegationConfig, authInfo: AuthInfo): boolean {
  const extra = authInfo.extra as Partial<CallerExtra> | undefined;
  if (extra?.via === 'static') return config.owners.includes(extra.owner ?? '');
  if (extra?.via === 'oauth') return authInfo.clientId !== '' && config.clientIds.includes(authInfo.clientId);
  return false;
}

/** The caller of a bearer-authenticated request once the person its body names (if any) is applied. */
export function applyDelegation(config: DelegationConfig, authInfo: AuthInfo, body: unknown): IdentityVerdict {
  const bot = ownerOf(authInfo);
  if (!bot) return { ok: false, status: 401, message: 'Unauthorized: the credential names no caller' };
  const named = onBehalfOf(body);
  if (named.kind === 'none') return { ok: true, owner: bot, authInfo };
  if (!delegates(config, authInfo)) {
    return {
      ok: false,
      status: 403,
      message: `Forbidden: this credential may not act for people (${ON_BEHALF_OF_KEY}); the operator marks bots that may in GENPLAT_HTTP_DELEGATING`,
    };
  }
  if (named.kind === 'invalid') return { ok: false, status: 403, message: `Forbidden: ${named.why}` };
  const owner = delegatedOwner(bot, named.id);
  const extra = authInfo.extra as CallerExtra;
  // The bot's name, e-mail and groups are the bot's, not the person's it names: a person acting through a bot
  // is in no team the bot's token claims (its own people-file groups still apply to it).
  const { name: _botName, email: _botEmail, groups: _botGroups, ...botExtra } = extra;
  return {
    ok: true,
    owner,
    authInfo: {
      ...authInfo,
      extra: {
        ...botExtra,
        owner,
        actingBot: bot,
        ...(named.name ? { name: named.name } : {}),
      } satisfies CallerExtra,
    },
  };
}
