/**
 * Teams from an OAuth groups claim over real HTTP (issue 30): a token the real provider issued with a groups claim
 * (named by GENPLAT_OAUTH_GROUPS_CLAIM) puts its caller in the team whose budget GENPLAT_BUDGETS sets, so a call
 * above what the team may spend this week is refused before consent, naming the team; the same caller's token
 * without the claim is not in the team and is asked to confirm instead. Nothing reaches the platform.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withToken } from './browser.js';
import { type OAuthFixture, startOAuthFixture } from './fixture.js';

let f: OAuthFixture;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genplat-team-oauth-'));
  const budgets = join(dir, 'budgets.yaml');
  await writeFile(budgets, 'teams:\n  video-leads: { week: 50 }\n');
  f = await startOAuthFixture({
    env: { GENPLAT_BUDGETS: budgets, GENPLAT_OAUTH_GROUPS_CLAIM: 'team_groups' },
  });
});
afterAll(async () => {
  await f?.close();
  await rm(dir, { recursive: true, force: true });
});

const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

describe('a team budget from the OAuth groups claim, over HTTP', () => {
  it('refuses a call above the team week for a token naming the team; the same caller without it is asked', async () => {
    const call = { name: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Hi.' } };
    f.idp.extraClaims = { team_groups: ['video-leads'], groups: ['ignored'] };
    const inTeam = await withToken(f.url, await f.idp.clientCredentialsToken(f.url, 'genplat:read genplat:spend'));
    const refused = (await inTeam.callTool(call)) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(
      /^Refused: team video-leads's weekly budget is 50 credits \(GENPLAT_BUDGETS\); 0 spent or held this week \(since \d{4}-\d\d-\d\d 00:00 UTC\), 50 left; this call is quoted at 100\./,
    );
    await inTeam.close();

    f.idp.extraClaims = {};
    const outside = await withToken(f.url, await f.idp.clientCredentialsToken(f.url, 'genplat:read genplat:spend'));
    const asked = (await outside.callTool(call)) as CallToolResult;
    expect(asked.isError).not.toBe(true);
    expect((asked.structuredContent as { status: string }).status).toBe('confirmation_required');
    await outside.close();
    expect(f.sim.log.count({ method: 'POST', path: '/video/generate' })).toBe(0);
  });
});
