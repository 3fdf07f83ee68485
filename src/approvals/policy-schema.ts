/**
 * The approval policy file (`GENPLAT_APPROVALS`, issue 28 item 4; docs/approvals.md): rules of the form
 * "when a paid call looks like this, these people must approve it first". Every object is strict: a misspelt
 * key is refused rather than ignored, because an ignored condition or approver list would let a call through
 * that the operator meant to stop.
 */
import { z } from 'zod';

/**
 * The paid tools a rule's `when.tools` may name. Kept here rather than read from the tool registry so loading a
 * policy at start-up never loads the tools; test/approvals/policy-file.test.ts checks it equals the billable
 * tools of ALL_TOOLS, so a new paid tool cannot be left out.
 */
export const PAID_TOOLS = [
  'animate_gesture',
  'create_campaign',
  'create_custom_avatar',
  'create_family_video',
  'create_product_video',
  'create_shoppable_image',
  'create_shoppable_video',
  'create_talking_video',
  'create_template_video',
  'run_model',
  'upscale_video',
] as const;

/** 24 hours: a person asked in chat answers within a working day; a longer wait should be a new request. */
export const DEFAULT_EXPIRY_MS = 24 * 3600 * 1000;
/** 30 days: an approval older than that decides a call nobody remembers asking for. */
export const MAX_EXPIRY_MS = 30 * 24 * 3600 * 1000;
/** More approvers than a team has is a typo (3000 for 3). */
export const MAX_APPROVALS_REQUIRED = 20;

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "90m", "24h", "2d" → milliseconds; undefined for any other text. */
export function durationMs(text: string): number | undefined {
  const m = /^([1-9]\d{0,5})(m|h|d)$/.exec(text);
  return m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : undefined;
}

const positiveInt = (max = Number.MAX_SAFE_INTEGER) =>
  z
    .number({ error: 'must be a positive integer' })
    .int({ error: 'must be a positive integer' })
    .min(1, { error: 'must be a positive integer' })
    .max(max, { error: `must be at most ${max}` });

/** A caller id as `list_jobs` and `audit export` show it (`slack:T1:U_LEAD`, `token:bot`, `oidc:…`). */
const callerId = z
  .string({ error: 'must be a caller id (a string such as "slack:T1:U_LEAD")' })
  .min(1, { error: 'must be a caller id, not empty' })
  .max(200, { error: 'must be at most 200 characters' })
  .regex(/^\S(.*\S)?$/, { error: 'must be a caller id without surrounding spaces' });

const groupName = z
  .string({ error: 'must be a group name (a string)' })
  .min(1, { error: 'must be a group name, not empty' })
  .max(100, { error: 'must be at most 100 characters' })
  .regex(/^\S(.*\S)?$/, { error: 'must be a group name without surrounding spaces' });

const duration = z
  .string({ error: 'must be a duration such as "90m", "24h" or "2d"' })
  .refine((t) => durationMs(t) !== undefined, { error: 'must be a duration such as "90m", "24h" or "2d"' })
  .refine((t) => (durationMs(t) ?? 0) <= MAX_EXPIRY_MS, { error: 'must be at most 30 days ("30d")' });

const paidTool = z.string({ error: 'must be a paid tool name' }).refine((t) => PAID_TOOLS.some((p) => p === t), {
  error: (issue) => `"${String(issue.input)}" is not a paid tool; paid tools: ${PAID_TOOLS.join(', ')}`,
});

const list = <T extends z.ZodType>(item: T, what: string) =>
  z.array(item, { error: `must be a list of ${what}` }).min(1, { error: `must list at least one ${what}` });

export const WhenSchema = z.strictObject(
  {
    credits_at_least: positiveInt().optional(),
    unbounded: z.literal(true, { error: 'must be true (leave it out to match bounded quotes too)' }).optional(),
    day_spend_at_least: positiveInt().optional(),
    tools: list(paidTool, 'paid tool').optional(),
    groups: list(groupName, 'group').optional(),
  },
  { error: 'must be an object of conditions ({} matches every paid call)' },
);

export const RuleSchema = z
  .strictObject(
    {
      name: z
        .string({ error: 'must be a string' })
        .min(1, { error: 'must not be empty' })
        .max(80, { error: 'must be at most 80 characters' })
        .optional(),
      when: WhenSchema,
      approvers: list(callerId, 'caller id').optional(),
      approver_groups: list(groupName, 'group').optional(),
      approvals_required: positiveInt(MAX_APPROVALS_REQUIRED).optional(),
      expires_after: duration.optional(),
    },
    { error: 'must be an object with "when" and "approvers" or "approver_groups"' },
  )
  .superRefine((rule, ctx) => {
    if (!rule.approvers && !rule.approver_groups) {
      ctx.addIssue({ code: 'custom', path: ['approvers'], message: 'a rule needs "approvers" or "approver_groups"' });
      return;
    }
    // Named people only: fewer of them than approvals required can never be met (groups are counted at use,
    // against the people file).
    const named = new Set(rule.approvers ?? []).size;
    const required = rule.approvals_required ?? 1;
    if (!rule.approver_groups && named < required) {
      ctx.addIssue({
        code: 'custom',
        path: ['approvals_required'],
        message: `is ${required} but only ${named} distinct approver(s) are named`,
      });
    }
  });

export const PolicyFileSchema = z
  .strictObject(
    {
      expires_after: duration.optional(),
      rules: z
        .array(RuleSchema, { error: 'must be a list of rules' })
        .min(1, { error: 'must list at least one rule (leave GENPLAT_APPROVALS unset for no approvals)' })
        .max(200, { error: 'must hold at most 200 rules' }),
    },
    { error: 'must be an object {"rules": [...]}' },
  )
  .superRefine((file, ctx) => {
    const seen = new Map<string, number>();
    file.rules.forEach((rule, i) => {
      if (rule.name === undefined) return;
      const first = seen.get(rule.name);
      if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['rules', i, 'name'],
          message: `"${rule.name}" is already the name of rules[${first}]`,
        });
      else seen.set(rule.name, i);
    });
  });

export type PolicyFile = z.output<typeof PolicyFileSchema>;
export type WhenInput = z.output<typeof WhenSchema>;

/** The keys each level accepts, for "did you mean" on a refused key. */
export const KNOWN_KEYS = {
  file: Object.keys(PolicyFileSchema.shape),
  rule: ['name', 'when', 'approvers', 'approver_groups', 'approvals_required', 'expires_after'],
  when: Object.keys(WhenSchema.shape),
} as const;

/** One rule as the evaluator reads it: names resolved, defaults filled. */
export interface ApprovalRule {
  /** The rule's `name`, else `rules[<index>]`: how refusals and answers name it. */
  name: string;
  when: {
    creditsAtLeast?: number;
    unbounded?: true;
    daySpendAtLeast?: number;
    tools?: readonly string[];
    groups?: readonly string[];
  };
  /** Caller ids named in the file (deduplicated, file order). */
  approvers: readonly string[];
  approverGroups: readonly string[];
  approvalsRequired: number;
  expiresInMs: number;
}

export interface ApprovalPolicy {
  /** Where the policy came from (a path), for messages. */
  source: string;
  rules: readonly ApprovalRule[];
}

/** The validated file → the evaluator's shape. */
export function toPolicy(file: PolicyFile, source: string): ApprovalPolicy {
  const fileExpiry = file.expires_after ? durationMs(file.expires_after) : undefined;
  return {
    source,
    rules: file.rules.map((r, i) => ({
      name: r.name ?? `rules[${i}]`,
      when: {
        ...(r.when.credits_at_least !== undefined ? { creditsAtLeast: r.when.credits_at_least } : {}),
        ...(r.when.unbounded ? { unbounded: true as const } : {}),
        ...(r.when.day_spend_at_least !== undefined ? { daySpendAtLeast: r.when.day_spend_at_least } : {}),
        ...(r.when.tools ? { tools: [...new Set(r.when.tools)] } : {}),
        ...(r.when.groups ? { groups: [...new Set(r.when.groups)] } : {}),
      },
      approvers: [...new Set(r.approvers ?? [])],
      approverGroups: [...new Set(r.approver_groups ?? [])],
      approvalsRequired: r.approvals_required ?? 1,
      expiresInMs: (r.expires_after ? durationMs(r.expires_after) : undefined) ?? fileExpiry ?? DEFAULT_EXPIRY_MS,
    })),
  };
}
