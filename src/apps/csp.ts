/**
 * The CSP a View declares (hosts enforce it: with none, `media-src`/`img-src` to other origins are blocked).
 * Computed when the UI resource is read, not at build time: the sandbox serves media from a random loopback
 * port known only once the simulator runs (mcp-notes 7.1).
 */
import type { Config } from '../config.js';
import { trustedMediaOrigins } from '../guards/url.js';

export interface UiCsp {
  /** img/media/script/style/font sources: where outputs, thumbnails and previews load from. */
  resourceDomains: string[];
  /**
   * fetch/XHR: only the origin of this server's upload links (HTTP mode: the upload panel PUTs a person's file
   * there, src/files/upload-route.ts); none otherwise: the View reaches the server through the host (tools/call).
   */
  connectDomains: string[];
}

export function viewCsp(config: Pick<Config, 'mediaHosts'>, uploadOrigin?: string): UiCsp {
  const domains = [...new Set([...config.mediaHosts, ...trustedMediaOrigins()])];
  return { resourceDomains: domains, connectDomains: uploadOrigin ? [uploadOrigin] : [] };
}
