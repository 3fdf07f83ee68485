/**
 * The job envelope (design.md section 2): one shape for every creator and job tool. `structuredContent`
 * must be self-sufficient because some hosts show the model nothing else (mcp-notes.md, finding 6).
 */
import { z } from 'zod';
import { ReconciliationSchema } from './reconcile.js';

export const JOB_STATUSES = [
  'confirmation_required',
  'declined',
  'submitted',
  'processing',
  'completed',
  'failed',
  'unknown',
  /** Held until a listed approver approves (issue 28 item 5): nothing sent; `handle` is `approval:<id>`. */
  'approval_required',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const EstimateSchema = z.object({
  credits: z.number().describe('displayed credits'),
  api_units: z.number().describe('API credit units (credits / 100)'),
  basis: z.string().describe('how the estimate was computed'),
  bounded: z
    .boolean()
    .describe(
      'true: published prices bound the charge; false: no published price (operator table or per-call ceiling)',
    ),
});
export type Estimate = z.infer<typeof EstimateSchema>;

/**
 * Displayed credits → the estimate record (API units are displayed credits / 100). `bounded: false` marks a
 * figure that no published price backs (an operator's table or the per-call ceiling): consent is then always
 * explicit (paid/guard.ts).
 */
export function estimate(credits: number, basis: string, opts: { bounded?: boolean } = {}): Estimate {
  return { credits, api_units: Math.round(credits) / 100, basis, bounded: opts.bounded ?? true };
}

/** Ledger records written before `bounded` existed were all quoted from published prices (or assumptions). */
export function withBounded(e: Omit<Estimate, 'bounded'> & { bounded?: boolean }): Estimate {
  return { ...e, bounded: e.bounded ?? true };
}

export const OutputSchema = z.object({
  url: z.string(),
  media: z.enum(['video', 'image', 'audio', 'avatar']),
});
export type JobOutput = z.infer<typeof OutputSchema>;

export const RemoteSchema = z.object({
  id: z.string().optional(),
  project_id: z.string().optional(),
  billing_id: z.string().optional(),
});

export const JobEnvelopeShape = {
  status: z.enum(JOB_STATUSES),
  handle: z.string().optional(),
  kind: z.string().optional(),
  estimate: EstimateSchema.optional(),
  confirmation_token: z.string().optional(),
  expires_at: z.string().optional(),
  remote: RemoteSchema.optional(),
  outputs: z.array(OutputSchema).optional(),
  reason: z.string().optional(),
  credits_charged: z.number().optional(),
  /** Quote vs the platform's reported charge, once it reported one (see src/jobs/reconcile.ts). */
  reconciliation: ReconciliationSchema.optional().describe('quote vs reported charge; above_quote flags an overcharge'),
  request_id: z.string().optional(),
  /** Extra facts of a finished job that matter to the agent (e.g. `avatar_id` of a custom avatar). */
  details: z.record(z.string(), z.unknown()).optional(),
  next_step: z.string(),
};
export const JobEnvelopeSchema = z.object(JobEnvelopeShape);
export type JobEnvelope = z.infer<typeof JobEnvelopeSchema>;
