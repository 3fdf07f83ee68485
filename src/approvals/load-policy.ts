/**
 * Reads the approval policy file named by `GENPLAT_APPROVALS` (JSON or YAML, by its extension) and validates it.
 * Every problem is one line naming the file, the rule and the field (`rules[0].when.credits_at_least: must be a
 * positive integer`), so the operator fixes all of them in one go. Called at start-up (src/index.ts: a bad file
 * stops the server, exit 2) and by `doctor`.
 *
 * YAML goes through the `yaml` package, imported only when the file is YAML: a full YAML reader is subtle
 * (anchors, tags, duplicate keys, multi-line scalars) and a home-made subset would accept files it misreads.
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { z } from 'zod';
import type { Config } from '../config.js';
import { closest } from '../did-you-mean.js';
import { ConfigurationError } from '../errors.js';
import { policyPeopleProblems } from './people-check.js';
import { type ApprovalPolicy, KNOWN_KEYS, PolicyFileSchema, toPolicy } from './policy-schema.js';

export type PolicyFormat = 'json' | 'yaml';

/** `.json` → JSON, `.yaml` / `.yml` → YAML; anything else is refused rather than guessed. */
export function formatOf(path: string): PolicyFormat | undefined {
  const ext = extname(path).toLowerCase();
  return ext === '.json' ? 'json' : ext === '.yaml' || ext === '.yml' ? 'yaml' : undefined;
}

/**
 * Reads and validates the file.
 * @throws ConfigurationError, one line per problem, each starting `GENPLAT_APPROVALS (<path>):`.
 */
export async function loadApprovalPolicy(path: string): Promise<ApprovalPolicy> {
  const where = `GENPLAT_APPROVALS (${path})`;
  const format = formatOf(path);
  if (!format) throw new ConfigurationError([`${where}: the file name must end in .json, .yaml or .yml`]);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigurationError([
      `${where}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    ]);
  }
  return parseApprovalPolicy(text, format, path);
}

/** Validates the text of a policy file; `source` names it in messages. */
export async function parseApprovalPolicy(text: string, format: PolicyFormat, source: string): Promise<ApprovalPolicy> {
  const where = `GENPLAT_APPROVALS (${source})`;
  let raw: unknown;
  if (format === 'json') {
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new ConfigurationError([`${where}: not valid JSON (${(err as Error).message})`]);
    }
  } else {
    const { parseDocument } = await import('yaml');
    // YAML 1.2 core schema: `yes` stays a string, no dates; a key written twice is an error, not a silent override.
    const doc = parseDocument(text, { schema: 'core', uniqueKeys: true, prettyErrors: true });
    if (doc.errors.length > 0) {
      throw new ConfigurationError(doc.errors.map((e) => `${where}: not valid YAML (${e.message.split('\n')[0]})`));
    }
    raw = doc.toJS({ maxAliasCount: 100 });
  }
  const parsed = PolicyFileSchema.safeParse(raw);
  if (!parsed.success)
    throw new ConfigurationError(policyProblems(parsed.error.issues, raw).map((p) => `${where}: ${p}`));
  return toPolicy(parsed.data, source);
}

/**
 * Start-up: the configuration with its approval policy loaded (undefined without `GENPLAT_APPROVALS`: today's
 * behaviour, no call ever waits for an approval).
 */
export async function withApprovalPolicy(config: Config): Promise<Config> {
  if (!config.approvalsFile) return config;
  const approvals = await loadApprovalPolicy(config.approvalsFile);
  // A group nobody is in would make a rule never match (calls go through that should wait) or approve nothing:
  // refused like any other error of the file. Unknown approver ids are only warnings (doctor shows them).
  const { errors } = policyPeopleProblems(approvals, config.people);
  if (errors.length > 0)
    throw new ConfigurationError(errors.map((e) => `GENPLAT_APPROVALS (${config.approvalsFile}): ${e}`));
  return { ...config, approvals };
}

/** `rules[0].when.credits_at_least` from zod's path. */
function pathText(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

/** The keys the object at `path` accepts. */
function knownKeysAt(path: readonly PropertyKey[]): readonly string[] {
  if (path.length === 0) return KNOWN_KEYS.file;
  if (path.length === 2 && path[0] === 'rules') return KNOWN_KEYS.rule;
  if (path.length === 3 && path[0] === 'rules' && path[2] === 'when') return KNOWN_KEYS.when;
  return [];
}

/** ` (rule "big spend")` when the rule at this path has a name in the file. */
function ruleLabel(path: readonly PropertyKey[], raw: unknown): string {
  if (path[0] !== 'rules' || typeof path[1] !== 'number') return '';
  const rules = (raw as { rules?: unknown } | null)?.rules;
  const rule = Array.isArray(rules) ? (rules[path[1]] as { name?: unknown } | undefined) : undefined;
  return typeof rule?.name === 'string' && path[2] !== 'name' ? ` (rule "${rule.name}")` : '';
}

/** One line per problem, each naming the field by its path in the file. */
function policyProblems(issues: readonly z.core.$ZodIssue[], raw: unknown): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const guess = closest(key, knownKeysAt(issue.path));
        const hint = guess ? `; did you mean "${guess}"?` : `; known keys: ${knownKeysAt(issue.path).join(', ')}`;
        lines.push(`${pathText([...issue.path, key])}: unknown key${hint}${ruleLabel(issue.path, raw)}`);
      }
      continue;
    }
    const at = issue.path.length > 0 ? pathText(issue.path) : 'the file';
    lines.push(`${at}: ${issue.message}${ruleLabel(issue.path, raw)}`);
  }
  return lines;
}
