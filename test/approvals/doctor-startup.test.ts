/**
 * GENPLAT_APPROVALS at the two places a setting is checked: `doctor` reports the file's problems naming the rule
 * and field (exit 1), and the built server refuses to start with a bad file (exit 2, one line per problem on
 * stderr) but starts with a good one.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/doctor.js';
import { ENTRY, ensureBuilt } from '../helpers/build.js';

let dir: string;
let good: string;
let bad: string;
/** Valid on its own, but its approver group has nobody in it: it would approve nothing. */
let emptyGroup: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genplat-approvals-doctor-'));
  good = join(dir, 'good.json');
  bad = join(dir, 'bad.yaml');
  await writeFile(good, '{"rules": [{"when": {"credits_at_least": 300}, "approvers": ["slack:T1:U_LEAD"]}]}');
  await writeFile(
    bad,
    'rules:\n  - name: big spend\n    when: { credits_at_least: 0 }\n    approvers: [slack:T1:U_LEAD]\n',
  );
  emptyGroup = join(dir, 'leads.json');
  await writeFile(emptyGroup, '{"rules": [{"when": {"credits_at_least": 300}, "approver_groups": ["leads"]}]}');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function doctor(env: NodeJS.ProcessEnv) {
  const lines: string[] = [];
  const code = await runDoctor({ argv: ['doctor', '--sandbox'], env, out: (l) => lines.push(l), timeoutMs: 5000 });
  return { code, out: lines.join('\n') };
}

const badLine = (path: string) =>
  `GENPLAT_APPROVALS (${path}): rules[0].when.credits_at_least: must be a positive integer (rule "big spend")`;

describe('doctor', () => {
  it('a good policy file passes, with its rule count', async () => {
    const { code, out } = await doctor({ GENPLAT_STATE_DIR: join(dir, 'state'), GENPLAT_APPROVALS: good });
    expect(out).toContain(`✓ approvals: 1 rule(s) from ${good}`);
    expect(code, out).toBe(0);
  });

  it('a bad policy file fails, naming the rule and the field', async () => {
    const { code, out } = await doctor({ GENPLAT_STATE_DIR: join(dir, 'state'), GENPLAT_APPROVALS: bad });
    expect(out).toContain(`✗ ${badLine(bad)}`);
    expect(out).toContain('the server refuses to start until the approval policy loads');
    expect(code).toBe(1);
  });

  it('a group the people file does not know fails, naming the rule and the field', async () => {
    const { code, out } = await doctor({ GENPLAT_STATE_DIR: join(dir, 'state'), GENPLAT_APPROVALS: emptyGroup });
    expect(out).toContain(
      `✗ GENPLAT_APPROVALS (${emptyGroup}): rules[0].approver_groups: nobody in GENPLAT_PEOPLE is in group "leads"`,
    );
    expect(code).toBe(1);
  });

  it('no policy file: said so, nothing fails', async () => {
    const { code, out } = await doctor({ GENPLAT_STATE_DIR: join(dir, 'state') });
    expect(out).toContain('• approvals: no GENPLAT_APPROVALS, no call waits for an approval');
    expect(code, out).toBe(0);
  });
});

describe('start-up (the built bin)', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  /** stdin is closed at once: a server that started stops ("stdin closed") with exit 0. */
  const start = (approvals: string) =>
    spawnSync(process.execPath, [ENTRY, '--sandbox'], {
      env: { PATH: process.env.PATH ?? '', GENPLAT_STATE_DIR: join(dir, 'state-bin'), GENPLAT_APPROVALS: approvals },
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      timeout: 60_000,
    });

  it('refuses to start with a bad policy file: exit 2, the problem on stderr, nothing on stdout', () => {
    const r = start(bad);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`genplat-mcp: ${badLine(bad)}`);
    expect(r.stdout).toBe('');
  });

  it('refuses to start when a group of the policy has nobody in it (calls would wait for no one)', () => {
    const r = start(emptyGroup);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('rules[0].approver_groups: nobody in GENPLAT_PEOPLE is in group "leads"');
  });

  it('starts with a good policy file', () => {
    const r = start(good);
    expect(r.stderr).toContain('ready on stdio');
    expect(r.status, r.stderr).toBe(0);
  });
});
