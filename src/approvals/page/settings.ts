/**
 * Whether this configuration can serve the approval page, and with what: GENPLAT_PUBLIC_URL (the links and the
 * redirect URI), GENPLAT_OAUTH_ISSUER (the OpenID provider approvers sign in with: the same one the MCP endpoint
 * trusts, so an approver's id is the id their MCP calls carry) and our confidential client there
 * (GENPLAT_OAUTH_CLIENT_ID/SECRET). Pure.
 */
import type { Config } from '../../config.js';
import type { ApprovalPageDeps } from './route.js';

export type ApprovalPageSettings =
  | { on: true; publicUrl: string; oidc: ApprovalPageDeps['oidc'] }
  | { on: false; why: string };

export function approvalPageSettings(
  config: Pick<Config, 'publicUrl' | 'oauth' | 'oauthClient'>,
): ApprovalPageSettings {
  const missing = [
    config.publicUrl ? undefined : 'GENPLAT_PUBLIC_URL',
    config.oauth ? undefined : 'GENPLAT_OAUTH_ISSUER',
    config.oauthClient ? undefined : 'GENPLAT_OAUTH_CLIENT_ID and GENPLAT_OAUTH_CLIENT_SECRET',
  ].filter((m): m is string => m !== undefined);
  if (!config.publicUrl || !config.oauth || !config.oauthClient || missing.length > 0) {
    return { on: false, why: `the approval page needs ${missing.join(', ')}` };
  }
  return {
    on: true,
    publicUrl: config.publicUrl,
    oidc: {
      issuer: config.oauth.issuer,
      clientId: config.oauthClient.clientId,
      clientSecret: config.oauthClient.clientSecret,
    },
  };
}
