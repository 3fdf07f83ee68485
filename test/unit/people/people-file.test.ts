/**
 * The people file (`GENPLAT_PEOPLE`, issue 28 item 3) and the identity settings: JSON and YAML read the same,
 * every mistake is named by entry and field before start (and by doctor), and names are what the audit shows.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, parseCli } from '../../../src/config.js';
import { runDoctor } from '../../../src/doctor.js';
import { describePerson, personText } from '../../../src/people/directory.js';
import { personClaims } from '../../../src/people/names.js';
import { loadPeopleFile } from '../../../src/people/people-file.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genplat-people-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

const ADA = { name: 'Ada Lovelace', email: 'ada@example.com', groups: ['video-leads'] };

describe('the people file', () => {
  it('reads JSON and YAML to the same directory', async () => {
    const json = await file(
      'people.json',
      JSON.stringify({ 'slack:T1:U_ADA': ADA, 'token:chatbot:bob': { name: 'Bob' } }),
    );
    const yaml = await file(
      'people.yaml',
      'slack:T1:U_ADA:\n  name: Ada Lovelace\n  email: ada@example.com\n  groups: [video-leads]\ntoken:chatbot:bob:\n  name: Bob\n',
    );
    for (const path of [json, yaml]) {
      const problems: string[] = [];
      const people = loadPeopleFile(path, problems);
      expect(problems, path).toEqual([]);
      expect(people.get('slack:T1:U_ADA'), path).toEqual(ADA);
      expect(people.get('token:chatbot:bob'), path).toEqual({ name: 'Bob', groups: [] });
    }
  });

  it('names the entry and the field of every mistake', async () => {
    const path = await file(
      'bad.json',
      JSON.stringify({
        'slack:T1:U_ADA': { name: '', email: 'not-an-address', groups: ['ok', 'not ok'], role: 'x' },
        'has space': { name: 'X' },
        'token:bot:c': 'Carol',
      }),
    );
    const problems: string[] = [];
    loadPeopleFile(path, problems);
    expect(problems).toEqual([
      'GENPLAT_PEOPLE: entry "slack:T1:U_ADA": unknown field "role" (name, email, groups, also)',
      'GENPLAT_PEOPLE: entry "slack:T1:U_ADA": name must be 1-100 printable characters',
      'GENPLAT_PEOPLE: entry "slack:T1:U_ADA": email is not an e-mail address',
      'GENPLAT_PEOPLE: entry "slack:T1:U_ADA": groups: "not ok" must be 1-64 letters, digits or . _ -',
      'GENPLAT_PEOPLE: entry "has space": not an owner id (e.g. slack:T0123:U0456, token:chatbot:alice)',
      'GENPLAT_PEOPLE: entry "token:bot:c": must be a mapping with name, email and/or groups',
    ]);
  });

  it('names an unreadable file and invalid syntax', async () => {
    const problems: string[] = [];
    loadPeopleFile(join(dir, 'missing.json'), problems);
    loadPeopleFile(await file('broken.yml', 'a: [unclosed'), problems);
    loadPeopleFile(await file('broken.json', '{'), problems);
    expect(problems[0]).toMatch(/cannot read the file ".*missing.json" \(ENOENT\)/);
    expect(problems[1]).toMatch(/"\S+broken.yml" is not valid YAML/);
    expect(problems[2]).toMatch(/"\S+broken.json" is not valid JSON/);
  });

  it('refuses to start (loadConfig) and doctor fails, naming the entry', async () => {
    const path = await file('bad2.json', JSON.stringify({ 'slack:T1:U1': { email: 'x' } }));
    const env = { GENPLAT_PEOPLE: path };
    expect(() => loadConfig(parseCli(['--sandbox']), env)).toThrow(/entry "slack:T1:U1": email is not an e-mail/);
    const lines: string[] = [];
    const code = await runDoctor({
      argv: ['doctor', '--sandbox'],
      env: { ...env, GENPLAT_STATE_DIR: dir },
      out: (l) => lines.push(l),
      timeoutMs: 5000,
    });
    expect(code).toBe(1);
    expect(lines.join('\n')).toMatch(/✗ config: GENPLAT_PEOPLE: entry "slack:T1:U1": email/);
  });

  it('the file names people first, then what the token or bot said', async () => {
    const path = await file('ok.json', JSON.stringify({ 'slack:T1:U_ADA': ADA }));
    const people = loadConfig(parseCli(['--sandbox']), { GENPLAT_PEOPLE: path }).people;
    expect(personText(describePerson(people, 'slack:T1:U_ADA', { name: 'ada.l' }))).toBe(
      'Ada Lovelace (slack:T1:U_ADA)',
    );
    expect(personText(describePerson(people, 'token:chatbot:bob', { name: 'Bob B.' }))).toBe(
      'Bob B. (token:chatbot:bob)',
    );
    expect(personText(describePerson(people, 'slack:T1:U_NEW'))).toBe('slack:T1:U_NEW');
    expect(personClaims({ name: ' Eve ', email: 'eve@example.com' })).toEqual({
      name: 'Eve',
      email: 'eve@example.com',
    });
    expect(personClaims({ name: 'a\u0007b', email: 'nope' })).toEqual({});
  });
});

describe('identity settings', () => {
  const load = (env: Record<string, string>) => loadConfig(parseCli(['--http', '--sandbox']), env);
  const problems = (env: Record<string, string>) => {
    try {
      load(env);
      return [];
    } catch (err) {
      return (err as { problems: string[] }).problems;
    }
  };

  it('Slack auth: secrets and workspaces; never all workspaces; never quoting a secret', () => {
    const c = load({
      GENPLAT_SLACK_SIGNING_SECRETS: ' s3cret-0123456789abcdef , other-0123456789abcdef ',
      GENPLAT_SLACK_TEAMS: 'T1,E2',
    });
    expect(c.slack).toEqual({
      signingSecrets: ['s3cret-0123456789abcdef', 'other-0123456789abcdef'],
      teams: ['T1', 'E2'],
    });
    expect(problems({ GENPLAT_SLACK_SIGNING_SECRETS: 's3cret-0123456789abcdef' }).join()).toMatch(
      /needs GENPLAT_SLACK_TEAMS/,
    );
    const short = problems({ GENPLAT_SLACK_SIGNING_SECRETS: 'tiny-secret', GENPLAT_SLACK_TEAMS: 'acme' });
    expect(short.join('\n')).toMatch(/secret #1 must be/);
    expect(short.join('\n')).toMatch(/"acme" is not a Slack team id/);
    expect(short.join('\n')).not.toContain('tiny-secret');
    expect(problems({ GENPLAT_SLACK_TEAMS: 'T1' }).join()).toMatch(/without GENPLAT_SLACK_SIGNING_SECRETS/);
  });

  it('doctor --http: Slack auth alone lets the server start; delegating bots and the people file are listed', async () => {
    const path = await file('doctor-people.json', JSON.stringify({ 'slack:T1:U_ADA': ADA }));
    const lines: string[] = [];
    await runDoctor({
      argv: ['doctor', '--sandbox', '--http', '--port', '0'],
      env: {
        GENPLAT_STATE_DIR: dir,
        GENPLAT_SLACK_SIGNING_SECRETS: 'slack-signing-secret-0123456789ab',
        GENPLAT_SLACK_TEAMS: 'T1',
        GENPLAT_HTTP_TOKEN: 'chatbot=chatbot-token-0123456789',
        GENPLAT_HTTP_DELEGATING: 'chatbot,client:agent-platform',
        GENPLAT_PEOPLE: path,
      },
      out: (l) => lines.push(l),
      timeoutMs: 5000,
    });
    const out = lines.join('\n');
    expect(out).toContain('✓ HTTP mode: Slack identity auth, 1 signing secret(s), workspaces T1');
    expect(out).toContain('✓ HTTP mode: delegating bots token:chatbot, client:agent-platform');
    expect(out).toContain(`✓ GENPLAT_PEOPLE: 1 people from ${path}`);
    expect(out).not.toContain('slack-signing-secret-0123456789ab');
    expect(out).not.toMatch(/✗ HTTP mode/);
  });

  it('delegation: named tokens by name, OAuth clients as client:<id>; an unknown name is refused', () => {
    const c = load({
      GENPLAT_HTTP_TOKEN: 'chatbot=chatbot-token-0123456789,ci=ci-token-0123456789abcd',
      GENPLAT_HTTP_DELEGATING: 'chatbot, client:my-bot',
    });
    expect(c.delegation).toEqual({ owners: ['token:chatbot'], clientIds: ['my-bot'] });
    expect(
      problems({ GENPLAT_HTTP_TOKEN: 'chatbot-token-0123456789', GENPLAT_HTTP_DELEGATING: 'chatbot' }).join(),
    ).toMatch(/"chatbot" is not the name of a token in GENPLAT_HTTP_TOKEN/);
    expect(load({}).delegation).toEqual({ owners: [], clientIds: [] });
  });
});
