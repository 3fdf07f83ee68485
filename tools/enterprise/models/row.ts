/**
 * One list_models row. Apart from listing.ts (which re-exports it) because list_models' output schema is
 * needed for tools/list at start-up, while the rows themselves need the model registry.
 */
import { z } from 'zod';

/**
 * `schema`: params are checked locally (rules at genplat://models/{model}); `strict`: unknown params are
 * rejected; `webhook`: webhook_url support, `no` = polling-only. No `.describe()`s: output schemas count
 * toward the tools/list token budget.
 */
export const ModelRowSchema = z.object({
  model: z.string(),
  media: z.string(),
  credits: z.string(),
  schema: z.boolean(),
  strict: z.boolean().optional(),
  webhook: z.enum(['yes', 'no', 'unstated']),
  tool: z.enum(['run_model', 'create_family_video']),
});
export type ModelRow = z.infer<typeof ModelRowSchema>;
