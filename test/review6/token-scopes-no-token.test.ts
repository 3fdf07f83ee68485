/**
 * Review 6: GENPLAT_HTTP_TOKEN_SCOPES is written `name=level`, GENPLAT_HTTP_TOKEN `name=token`. An operator who
 * pastes the token line (or a token) into the scopes variable must not see the token in the start-up error: the
 * problems go to stderr, service logs and CI output. The problem still names the variable, the entry and the rule.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, parseCli } from '../../src/config.js';

const PLANNER_TOKEN = 'plannertokensecretvalue';
const MIXED_TOKEN = 'Planner-Token-0123456789';
const TOKENS = `planner=${PLANNER_TOKEN},other=${MIXED_TOKEN}`;

function problems(scopes: string): string {
  try {
    loadConfig(parseCli(['--http', '--sandbox']), { GENPLAT_HTTP_TOKEN: TOKENS, GENPLAT_HTTP_TOKEN_SCOPES: scopes });
    return '';
  } catch (err) {
    return ((err as { problems: string[] }).problems ?? []).join('\n');
  }
}

describe('GENPLAT_HTTP_TOKEN_SCOPES given a token by mistake', () => {
  it('names the entry and the rule, never the token (a lower-case token in the level place)', () => {
    const said = problems(`planner=${PLANNER_TOKEN}`);
    expect(said).toMatch(/GENPLAT_HTTP_TOKEN_SCOPES: "planner": the scope must be read, quote or spend/);
    expect(said).not.toContain(PLANNER_TOKEN);
  });

  it('names the entry and the rule, never the token (the token line pasted whole)', () => {
    const said = problems(TOKENS);
    expect(said).toMatch(/GENPLAT_HTTP_TOKEN_SCOPES: entry 2 .*must be <token name>=<read\|quote\|spend>/);
    expect(said).not.toContain(PLANNER_TOKEN);
    expect(said).not.toContain(MIXED_TOKEN);
  });

  it('still shows a short typo, which cannot be a token (tokens are at least 16 characters)', () => {
    expect(problems('planner=admin')).toMatch(/\(not "admin"\)/);
    expect(problems('planner:quote')).toMatch(/entry 1 "planner:quote" must be/);
  });
});
