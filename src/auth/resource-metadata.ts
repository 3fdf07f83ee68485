/**
 * Protected resource metadata (RFC 9728): the document a 401's `WWW-Authenticate: Bearer resource_metadata=…`
 * points at, naming the authorization server that signs our users in and the scopes we understand. Served at the
 * path-aware location of our resource (`/.well-known/oauth-protected-resource/mcp`, what the SDK's challenge and
 * 2025-11-25 clients use first) and at the root location (clients that only try that).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  getOAuthProtectedResourceMetadataUrl,
  type OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/server';
import type { OAuthConfig } from './oauth-config.js';
import { ALL_SCOPES } from './scopes.js';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export function protectedResourceMetadata(oauth: OAuthConfig): OAuthProtectedResourceMetadata {
  return {
    resource: oauth.resource,
    authorization_servers: [oauth.issuer],
    // Both, so hosts ask for both at sign-in: step-up after a 403 is handled badly by hosts (mcp-notes §8).
    scopes_supported: [...ALL_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Generation Platform (genplat-mcp)',
  };
}

/** The URL our challenges name (`resource_metadata`). */
export function resourceMetadataUrl(oauth: OAuthConfig): string {
  return getOAuthProtectedResourceMetadataUrl(new URL(oauth.resource));
}

/** Paths answered with the document: root, the resource's own path, and `/mcp` (a proxy that strips a prefix). */
export function metadataPaths(oauth: OAuthConfig, mcpPath: string): Set<string> {
  const own = new URL(oauth.resource).pathname.replace(/\/$/, '');
  return new Set([WELL_KNOWN, `${WELL_KNOWN}${own}`, `${WELL_KNOWN}${mcpPath}`]);
}

/**
 * The route: true when it answered. Public and cacheable (no token needed to find out how to get one); any
 * origin may read it, as browser-based clients fetch it cross-origin.
 */
export function metadataRoute(
  oauth: OAuthConfig,
  mcpPath: string,
): (req: IncomingMessage, res: ServerResponse, path: string) => boolean {
  const paths = metadataPaths(oauth, mcpPath);
  const body = JSON.stringify(protectedResourceMetadata(oauth));
  return (req, res, path) => {
    if (!paths.has(path)) return false;
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, OPTIONS' };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...cors, 'access-control-allow-headers': 'mcp-protocol-version' });
      res.end();
    } else if (req.method === 'GET' || req.method === 'HEAD') {
      // One hour: the document changes only with the configuration (a restart).
      res.writeHead(200, { ...cors, 'content-type': 'application/json', 'cache-control': 'public, max-age=3600' });
      res.end(req.method === 'GET' ? body : undefined);
    } else {
      res.writeHead(405, { ...cors, allow: 'GET, OPTIONS' });
      res.end();
    }
    return true;
  };
}
