import { CriticId } from '@rloop/contracts';
import { z } from 'zod';

const PerPhase = <T extends z.ZodType>(value: T) =>
  z.strictObject({ critical: value, medium: value, low: value, final_sweep: value });

export const CriticEntry = z.strictObject({
  /** The kind of evidence the critic brings (independence over breadth, spec Decision 1). */
  evidence: z.string().min(1),
  description: z.string().default(''),
  timeout_ms: z.int().min(1000).max(3_600_000).default(120_000),
  /** What the critic needs to be configured; `anthropic` critics need ANTHROPIC_API_KEY. */
  requires: z.enum(['anthropic']).optional(),
  /** `builtin` critics run in critic-runner; `external` ones are services that register on the bus. */
  host: z.enum(['builtin', 'external']).default('builtin'),
  /** Settings of the critic's own (thresholds), checked by the critic-runner when it builds it. */
  settings: z.record(z.string(), z.unknown()).optional(),
});
export type CriticEntry = z.infer<typeof CriticEntry>;

export const DynamicTrigger = z.strictObject({
  name: z.string().min(1),
  globs: z.array(z.string().min(1)).min(1),
  critics: z.array(CriticId).min(1),
  /**
   * The critics this trigger adds are core for the round: a plan with a Python file cannot end
   * clean without Python's compiler and linter having reported (the spec's critical tier).
   */
  core: z.boolean().default(false),
});

/** config/critics.yaml: the panel's catalogue (spec Decisions 1-3). */
export const CriticCatalogue = z
  .strictObject({
    /** Top-K per critic for each phase; null is unlimited (the final sweep). */
    k: PerPhase(z.int().min(1).nullable()),
    /** Rounds a phase may take before it escalates. TODO(calibration): 8/5/3 are the spec's guesses; `rloop calibrate` reports what converging loops needed. */
    soft_caps: PerPhase(z.int().min(1)),
    /** Extra time after the slowest critic's timeout before the synthesizer writes the letter without a late critic. */
    round_grace_ms: z.int().min(0).default(15_000),
    critics: z.record(CriticId, CriticEntry),
    /** Always dispatched; a round whose core critic failed never counts as clean. */
    core: z.array(CriticId).min(1),
    /** Added when a plan's files match (spec's dynamic table). */
    dynamic: z.array(DynamicTrigger).default([]),
  })
  .superRefine((catalogue, ctx) => {
    const known = new Set(Object.keys(catalogue.critics));
    const check = (id: string, path: (string | number)[]) => {
      if (!known.has(id)) ctx.addIssue({ code: 'custom', path, message: `critic ${id} is not in the critics table` });
    };
    catalogue.core.forEach((id, i) => check(id, ['core', i]));
    catalogue.dynamic.forEach((trigger, t) =>
      trigger.critics.forEach((id, i) => check(id, ['dynamic', t, 'critics', i])),
    );
  });
export type CriticCatalogue = z.infer<typeof CriticCatalogue>;
