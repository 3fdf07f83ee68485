/**
 * The approval policy file (GENPLAT_APPROVALS, issue 28 item 4): the smallest file works as written, JSON and
 * YAML read alike, and every error names the file, the rule and the field.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalNeeded } from '../../src/approvals/evaluate.js';
import { loadApprovalPolicy, parseApprovalPolicy } from '../../src/approvals/load-policy.js';
import { DEFAULT_EXPIRY_MS, PAID_TOOLS } from '../../src/approvals/policy-schema.js';
import { loadConfig, parseCli } from '../../src/config.js';
import { ConfigurationError } from '../../src/errors.js';
import { ALL_TOOLS } from '../../tools/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genplat-approvals-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

/** The problems a bad file is refused with. */
async function problems(text: string, format: 'json' | 'yaml' = 'json'): Promise<string[]> {
  try {
    await parseApprovalPolicy(text, format, 'policy');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigurationError);
    return (err as ConfigurationError).problems;
  }
  throw new Error('the file was accepted');
}

const call = { requester: 'slack:T1:U_DEV', tool: 'run_model', daySpendAfter: 0, requesterGroups: [] };

describe('the smallest policy file, as the issue writes it', () => {
  it('JSON: a 300-credit call needs slack:T1:U_LEAD, a 299-credit call needs nobody', async () => {
    const path = await file(
      'smallest.json',
      '{"rules": [{"when": {"credits_at_least": 300}, "approvers": ["slack:T1:U_LEAD"]}]}',
    );
    const policy = await loadApprovalPolicy(path);
    expect(approvalNeeded(policy, { ...call, credits: 300 }, {})).toEqual({
      kind: 'approval',
      rules: ['rules[0]'],
      requirements: [{ rule: 'rules[0]', approvers: ['slack:T1:U_LEAD'], required: 1 }],
      approvers: ['slack:T1:U_LEAD'],
      expiresInMs: DEFAULT_EXPIRY_MS,
    });
    expect(approvalNeeded(policy, { ...call, credits: 299 }, {})).toBeUndefined();
  });

  it('YAML: the same rule reads the same', async () => {
    const yaml = await file(
      'smallest.yaml',
      'rules:\n  - when: { credits_at_least: 300 }\n    approvers: [slack:T1:U_LEAD]\n',
    );
    const json = await file(
      'same.json',
      '{"rules": [{"when": {"credits_at_least": 300}, "approvers": ["slack:T1:U_LEAD"]}]}',
    );
    const fromYaml = await loadApprovalPolicy(yaml);
    const fromJson = await loadApprovalPolicy(json);
    expect(fromYaml.rules).toEqual(fromJson.rules);
    expect(fromYaml.source).toBe(yaml);
  });

  it('names, per-rule and file-wide expiry, groups and several approvals are read', async () => {
    const policy = await parseApprovalPolicy(
      [
        'expires_after: 2d',
        'rules:',
        '  - name: big spend',
        '    when: { credits_at_least: 1000, tools: [run_model, create_campaign] }',
        '    approver_groups: [finance]',
        '    approvals_required: 2',
        '    expires_after: 90m',
        '  - when: { unbounded: true }',
        '    approvers: [slack:T1:U_LEAD]',
      ].join('\n'),
      'yaml',
      'policy.yaml',
    );
    expect(policy.rules).toEqual([
      {
        name: 'big spend',
        when: { creditsAtLeast: 1000, tools: ['run_model', 'create_campaign'] },
        approvers: [],
        approverGroups: ['finance'],
        approvalsRequired: 2,
        expiresInMs: 90 * 60_000,
      },
      {
        name: 'rules[1]',
        when: { unbounded: true },
        approvers: ['slack:T1:U_LEAD'],
        approverGroups: [],
        approvalsRequired: 1,
        expiresInMs: 2 * 86_400_000,
      },
    ]);
  });
});

describe('docs/approvals.md', () => {
  it('its examples are valid policy files', async () => {
    const doc = await readFile(join(import.meta.dirname, '../../docs/approvals.md'), 'utf8');
    const json = /```json\n([^`]+)```/.exec(doc)?.[1];
    const yaml = /```yaml\n([^`]+)```/.exec(doc)?.[1];
    expect((await parseApprovalPolicy(json ?? '', 'json', 'doc')).rules).toHaveLength(1);
    const rich = await parseApprovalPolicy(yaml ?? '', 'yaml', 'doc');
    expect(rich.rules.map((r) => r.name)).toEqual(['big spend', 'no price', "interns' models", 'heavy day']);
    expect(rich.rules[2]?.approvers).toEqual(['slack:T1:U_LEAD', 'slack:T1:U_CTO']);
  });
});

describe('a bad file is refused, each problem naming the rule and the field', () => {
  it.each([
    [{ when: { credits_at_least: 0 }, approvers: ['a'] }, 'rules[0].when.credits_at_least: must be a positive integer'],
    [
      { when: { credits_at_least: 2.5 }, approvers: ['a'] },
      'rules[0].when.credits_at_least: must be a positive integer',
    ],
    [
      { when: { credits_at_least: '300' }, approvers: ['a'] },
      'rules[0].when.credits_at_least: must be a positive integer',
    ],
    [
      { when: { day_spend_at_least: -1 }, approvers: ['a'] },
      'rules[0].when.day_spend_at_least: must be a positive integer',
    ],
    [{ when: { unbounded: false }, approvers: ['a'] }, 'rules[0].when.unbounded: must be true'],
    [{ when: { tools: ['run_modle'] }, approvers: ['a'] }, 'rules[0].when.tools[0]: "run_modle" is not a paid tool'],
    [{ when: { tools: ['get_job'] }, approvers: ['a'] }, 'rules[0].when.tools[0]: "get_job" is not a paid tool'],
    [{ when: { groups: [] }, approvers: ['a'] }, 'rules[0].when.groups: must list at least one group'],
    [{ when: {} }, 'rules[0].approvers: a rule needs "approvers" or "approver_groups"'],
    [{ when: {}, approvers: [' a'] }, 'rules[0].approvers[0]: must be a caller id without surrounding spaces'],
    [{ when: {}, approvers: ['a', 'b'], approvals_required: 3 }, 'rules[0].approvals_required: is 3 but only 2'],
    [{ when: {}, approvers: ['a', 'a'], approvals_required: 2 }, 'rules[0].approvals_required: is 2 but only 1'],
    [{ when: {}, approver_groups: ['x'], approvals_required: 21 }, 'rules[0].approvals_required: must be at most 20'],
    [{ when: {}, approvers: ['a'], expires_after: '24 hours' }, 'rules[0].expires_after: must be a duration'],
    [{ when: {}, approvers: ['a'], expires_after: '31d' }, 'rules[0].expires_after: must be at most 30 days'],
    [{ approvers: ['a'] }, 'rules[0].when: must be an object of conditions'],
    [
      { when: { credit_at_least: 300 }, approvers: ['a'] },
      'rules[0].when.credit_at_least: unknown key; did you mean "credits_at_least"?',
    ],
    [{ when: {}, approver: ['a'] }, 'rules[0].approver: unknown key; did you mean "approvers"?'],
  ])('%j → %s', async (rule, expected) => {
    const lines = await problems(JSON.stringify({ rules: [{ name: 'ok', when: {}, approvers: ['x'] }, rule] }));
    // The bad rule is the second one: every message must say rules[1], never the good rules[0].
    const shifted = expected.replace('rules[0]', 'rules[1]');
    expect(
      lines.some((l) => l.startsWith(`GENPLAT_APPROVALS (policy): ${shifted}`)),
      lines.join('\n'),
    ).toBe(true);
    expect(lines.every((l) => !l.includes('rules[0]'))).toBe(true);
  });

  it('a named rule is named in its errors too', async () => {
    const lines = await problems(
      JSON.stringify({ rules: [{ name: 'big spend', when: { credits_at_least: 0 }, approvers: ['a'] }] }),
    );
    expect(lines).toEqual([
      'GENPLAT_APPROVALS (policy): rules[0].when.credits_at_least: must be a positive integer (rule "big spend")',
    ]);
  });

  it('every problem is reported, not only the first', async () => {
    const lines = await problems(
      JSON.stringify({
        rules: [
          { when: { credits_at_least: 0 }, approvers: ['a'] },
          { when: { tools: ['nope'] }, approver_groups: [] },
        ],
      }),
    );
    expect(lines).toHaveLength(3);
  });

  it('the file level: unknown key, no rules, duplicate rule names, not an object', async () => {
    expect(await problems('{"rules": [], "rule": []}')).toEqual([
      'GENPLAT_APPROVALS (policy): rules: must list at least one rule (leave GENPLAT_APPROVALS unset for no approvals)',
      'GENPLAT_APPROVALS (policy): rule: unknown key; did you mean "rules"?',
    ]);
    expect(
      await problems(
        JSON.stringify({
          rules: [
            { name: 'x', when: {}, approvers: ['a'] },
            { name: 'x', when: {}, approvers: ['a'] },
          ],
        }),
      ),
    ).toEqual(['GENPLAT_APPROVALS (policy): rules[1].name: "x" is already the name of rules[0]']);
    expect(await problems('[]')).toEqual(['GENPLAT_APPROVALS (policy): the file: must be an object {"rules": [...]}']);
  });

  it('YAML errors name the rule and field the same way', async () => {
    const lines = await problems('rules:\n  - when: { credits_at_least: 0 }\n    approvers: [a]\n', 'yaml');
    expect(lines).toEqual(['GENPLAT_APPROVALS (policy): rules[0].when.credits_at_least: must be a positive integer']);
  });

  it('unparsable text: JSON and YAML syntax errors, and a key written twice in YAML', async () => {
    expect((await problems('{"rules": [')).join()).toMatch(/^GENPLAT_APPROVALS \(policy\): not valid JSON/);
    expect((await problems('rules: [\n', 'yaml')).join()).toMatch(/^GENPLAT_APPROVALS \(policy\): not valid YAML/);
    const twice = await problems('rules:\n  - when: {}\n    approvers: [a]\n    approvers: [b]\n', 'yaml');
    expect(twice.join()).toMatch(/not valid YAML \(Map keys must be unique/);
  });

  it('the file: unknown extension, missing, unreadable', async () => {
    await expect(loadApprovalPolicy(join(dir, 'policy.txt'))).rejects.toThrow(
      /GENPLAT_APPROVALS \(.*policy\.txt\): the file name must end in \.json, \.yaml or \.yml/,
    );
    await expect(loadApprovalPolicy(join(dir, 'absent.json'))).rejects.toThrow(/cannot read the file \(ENOENT\)/);
    if (process.getuid?.() !== 0) {
      const locked = await file('locked.json', '{}');
      await chmod(locked, 0);
      await expect(loadApprovalPolicy(locked)).rejects.toThrow(/cannot read the file \(EACCES\)/);
    }
  });
});

describe('configuration', () => {
  it('GENPLAT_APPROVALS is kept as an absolute path; unset, there is no policy file', () => {
    const cli = parseCli(['--sandbox']);
    expect(loadConfig(cli, { GENPLAT_APPROVALS: 'rel/policy.json' }).approvalsFile).toBe(
      join(process.cwd(), 'rel/policy.json'),
    );
    const none = loadConfig(cli, {});
    expect(none.approvalsFile).toBeUndefined();
    expect(none.approvals).toBeUndefined();
  });

  it('PAID_TOOLS is exactly the billable tools of the registry (a new paid tool must be added)', () => {
    const billable = ALL_TOOLS.filter((t) => t.billable !== undefined).map((t) => t.name);
    expect([...PAID_TOOLS].sort()).toEqual(billable.sort());
  });
});
