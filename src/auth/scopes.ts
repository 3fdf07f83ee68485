/**
 * The two OAuth scopes (issue 14 item 2): `genplat:read` for everything free, `genplat:spend` for the tools that
 * start paid jobs. Spending implies reading (the MCP spec asks servers to honour scope hierarchies), so a token
 * holding only `genplat:spend` can still list and wait. The SDK's `requireScopes` is an exact match, hence the
 * challenge handlers here.
 */
import type { AuthInfo, ScopeChallengeHandler } from '@modelcontextprotocol/server';

export const READ_SCOPE = 'genplat:read';
export const SPEND_SCOPE = 'genplat:spend';
/** Advertised in the protected resource metadata and asked for at sign-in: both, so no step-up is ever needed. */
export const ALL_SCOPES = [READ_SCOPE, SPEND_SCOPE] as const;

export type Access = 'read' | 'spend';

/** Whether a token's scopes grant `access` (spend ⊃ read). */
export function grants(scopes: readonly string[], access: Access): boolean {
  if (scopes.includes(SPEND_SCOPE)) return true;
  return access === 'read' && scopes.includes(READ_SCOPE);
}

/**
 * The `scopeChallenge` of a tool: undefined (go ahead) when the caller may, else the SDK answers 403
 * `insufficient_scope` before the handler runs, so a refused paid call does no work at all. No `authInfo` (stdio,
 * in-memory) means no OAuth: the operator's own process. A spend challenge names both scopes, so a client that
 * replaces its token on step-up instead of widening it keeps read access.
 */
export function scopeChallengeFor(access: Access): ScopeChallengeHandler {
  return ({ authInfo }: { authInfo?: AuthInfo }) => {
    if (authInfo === undefined || grants(authInfo.scopes, access)) return undefined;
    return access === 'spend'
      ? { scopes: [...ALL_SCOPES], errorDescription: `this tool starts a paid job: it needs the ${SPEND_SCOPE} scope` }
      : { scopes: [READ_SCOPE], errorDescription: `this tool needs the ${READ_SCOPE} scope` };
  };
}
