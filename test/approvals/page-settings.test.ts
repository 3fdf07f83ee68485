/**
 * Which configuration serves the approval page (src/approvals/page/settings.ts), read through the real
 * `loadConfig`: GENPLAT_PUBLIC_URL, GENPLAT_OAUTH_ISSUER and our client at the issuer, each named when missing.
 */
import { describe, expect, it } from 'vitest';
import { approvalPageSettings } from '../../src/approvals/page/settings.js';
import { loadConfig, parseCli } from '../../src/config.js';

const BASE_ENV = {
  GENPLAT_API_KEY: 'key-0123456789',
  GENPLAT_BASE_URL: 'https://api.genplat.example/v2',
  GENPLAT_STATE_DIR: '/state',
};
const FULL = {
  ...BASE_ENV,
  GENPLAT_PUBLIC_URL: 'https://mcp.example.com/',
  GENPLAT_OAUTH_ISSUER: 'https://id.example.com/',
  GENPLAT_OAUTH_CLIENT_ID: ' genplat-approvals ',
  GENPLAT_OAUTH_CLIENT_SECRET: 'approval-client-secret-0123456789',
};
const load = (env: Record<string, string>) => loadConfig(parseCli(['--http']), env);

describe('approval page settings', () => {
  it('on with the public URL, the issuer and our client', () => {
    expect(approvalPageSettings(load(FULL))).toEqual({
      on: true,
      publicUrl: 'https://mcp.example.com',
      oidc: {
        issuer: 'https://id.example.com/',
        clientId: 'genplat-approvals',
        clientSecret: 'approval-client-secret-0123456789',
      },
    });
  });

  it('off, naming what is missing', () => {
    const { GENPLAT_OAUTH_CLIENT_SECRET: _s, ...noSecret } = FULL;
    expect(approvalPageSettings(load(noSecret))).toEqual({
      on: false,
      why: 'the approval page needs GENPLAT_OAUTH_CLIENT_ID and GENPLAT_OAUTH_CLIENT_SECRET',
    });
    const { GENPLAT_OAUTH_ISSUER: _i, ...noIssuer } = FULL;
    const off = approvalPageSettings(load(noIssuer));
    expect(off).toMatchObject({ on: false });
    expect(off.on === false && off.why).toContain('GENPLAT_OAUTH_ISSUER');
    expect(approvalPageSettings(load(BASE_ENV))).toEqual({
      on: false,
      why: 'the approval page needs GENPLAT_PUBLIC_URL, GENPLAT_OAUTH_ISSUER, GENPLAT_OAUTH_CLIENT_ID and GENPLAT_OAUTH_CLIENT_SECRET',
    });
  });
});
