import { EffortLevel } from '@rloop/contracts';
import { z } from 'zod';

/** config/refinement-triggers.yaml: when the loop runs (spec Decision 7). */
export const RefinementTriggers = z.strictObject({
  /** Effort levels that always run the loop. */
  effort_levels: z.array(EffortLevel).min(1),
  /** Phrases in a plan's title or description that bypass the loop (matched as whole words, any case). */
  escape_phrases: z.array(z.string().min(1)).default([]),
  /** Risk surfaces by category: any file of the plan matching a glob runs the loop. */
  risk_surfaces: z.record(z.string().regex(/^[a-z0-9_]+$/), z.array(z.string().min(1)).min(1)),
});
export type RefinementTriggers = z.infer<typeof RefinementTriggers>;
