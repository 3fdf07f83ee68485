/**
 * The three OAuth scopes (issue 14 item 2, issue 30 item 6): `genplat:read` for everything free, `genplat:quote` to
 * call the paid tools for their quote and consent card without being able to admit one, `genplat:spend` to start
 * paid jobs. Each level implies the ones below it (the MCP spec asks servers to honour scope hierarchies), so a
 * token holding only `genplat:spend` can still list, wait and quote. The SDK's `requireScopes` is an exact match,
 * hence the challenge handlers here. Static tokens get a level from GENPLAT_HTTP_TOKEN_SCOPES (default spend).
 */
import type { AuthInfo, ScopeChallengeHandler } from '@modelcontextprotocol/server';

export const READ_SCOPE = 'genplat:read';
export const QUOTE_SCOPE = 'genplat:quote';
export const SPEND_SCOPE = 'genplat:spend';
/** Advertised in the protected resource metadata and asked for at sign-in: all three, so no step-up is ever needed. */
export const ALL_SCOPES = [READ_SCOPE, QUOTE_SCOPE, SPEND_SCOPE] as const;

/** What a credential may do, lowest first: each level includes the ones before it. */
export const ACCESS_LEVELS = ['read', 'quote', 'spend'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

const SCOPE_OF: Record<Access, string> = { read: READ_SCOPE, quote: QUOTE_SCOPE, spend: SPEND_SCOPE };

/** The highest level a token's scopes grant; undefined when they grant none (not even reading). */
export function accessOf(scopes: readonly string[]): Access | undefined {
  for (const level of [...ACCESS_LEVELS].reverse()) if (scopes.includes(SCOPE_OF[level])) return level;
  return undefined;
}

/** Whether a token's scopes grant `access` (spend ⊃ quote ⊃ read). */
export function grants(scopes: readonly string[], access: Access): boolean {
  const held = accessOf(scopes);
  return held !== undefined && ACCESS_LEVELS.indexOf(held) >= ACCESS_LEVELS.indexOf(access);
}

/** The scopes a credential of `access` holds (a static token's, a Slack person's): its level and every one below. */
export function scopesFor(access: Access): string[] {
  return ACCESS_LEVELS.slice(0, ACCESS_LEVELS.indexOf(access) + 1).map((l) => SCOPE_OF[l]);
}

/**
 * The `scopeChallenge` of a tool: undefined (go ahead) when the caller may, else the SDK answers 403
 * `insufficient_scope` before the handler runs, so a refused call does no work at all. No `authInfo` (stdio,
 * in-memory) means no OAuth: the operator's own process. A paid tool needs `quote` to be called (it answers a
 * quote-only caller with the quote, never admitting: src/paid/guard.ts), the tools that are themselves consent (the
 * App's Confirm, decide_approval) need `spend`. Both challenges name every scope, so a client that replaces its
 * token on step-up instead of widening it keeps what it had.
 */
export function scopeChallengeFor(access: Access): ScopeChallengeHandler {
  return ({ authInfo }: { authInfo?: AuthInfo }) => {
    if (authInfo === undefined || grants(authInfo.scopes, access)) return undefined;
    if (access === 'read') return { scopes: [READ_SCOPE], errorDescription: `this tool needs the ${READ_SCOPE} scope` };
    return {
      scopes: [...ALL_SCOPES],
      errorDescription:
        access === 'quote'
          ? `this tool quotes paid jobs: it needs the ${QUOTE_SCOPE} scope (and ${SPEND_SCOPE} to start one)`
          : `this tool consents to a paid job: it needs the ${SPEND_SCOPE} scope`,
    };
  };
}
