import { z } from 'zod';
import { EventId, Slug } from './primitives.js';

export const EFFORT_LEVELS = ['low', 'medium', 'high', 'xhigh'] as const;
export const EffortLevel = z.enum(EFFORT_LEVELS);
export type EffortLevel = z.infer<typeof EffortLevel>;

export const IMPLEMENTER_STRATEGIES = ['autofix', 'command', 'anthropic', 'agent'] as const;
export const ImplementerStrategy = z.enum(IMPLEMENTER_STRATEGIES);
export type ImplementerStrategy = z.infer<typeof ImplementerStrategy>;

/** The coding-agent CLIs the `agent` strategy has presets for (their non-interactive invocation). */
export const CODING_AGENTS = ['claude-code', 'codex', 'aider', 'gemini'] as const;
export const CodingAgent = z.enum(CODING_AGENTS);
export type CodingAgent = z.infer<typeof CodingAgent>;

/** Size limits on a plan; the gate also caps the whole request body (see PLAN_LIMITS.maxBodyBytes). */
export const PLAN_LIMITS = {
  maxBodyBytes: 256 * 1024,
  maxFiles: 500,
  maxTitle: 200,
  maxDescription: 20_000,
  maxPath: 1024,
  maxCommand: 2000,
  maxAgentArgs: 20,
  maxAgentArg: 500,
} as const;

export const PlanRepo = z
  .strictObject({
    path: z.string().min(1).max(PLAN_LIMITS.maxPath).optional(),
    url: z.string().min(1).max(PLAN_LIMITS.maxPath).optional(),
    ref: z.string().min(1).max(255).default('HEAD'),
  })
  .refine((r) => (r.path === undefined) !== (r.url === undefined), {
    error: 'give exactly one of repo.path and repo.url',
  })
  // Named so schemas/ shows the refined type by name (JSON Schema cannot express the refinement).
  .meta({ id: 'PlanRepo' });
export type PlanRepo = z.infer<typeof PlanRepo>;

/** The fields only the `agent` strategy reads. */
const AGENT_FIELDS = ['agent', 'model', 'extra_args'] as const;

export const PlanImplementer = z
  .strictObject({
    strategy: ImplementerStrategy,
    command: z.string().min(1).max(PLAN_LIMITS.maxCommand).optional(),
    /** The coding agent of the `agent` strategy: one of the presets (docs/contracts.md). */
    agent: CodingAgent.optional(),
    /** The agent's model (its `--model`); absent: the agent's own default. */
    model: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/, 'must be a model name: letters, digits and . _ : / @ -')
      .optional(),
    /** More arguments for the agent's command line, each one argument (never parsed by a shell). */
    extra_args: z
      .array(
        z
          .string()
          .min(1)
          .max(PLAN_LIMITS.maxAgentArg)
          // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
          .regex(/^[^\u0000-\u001f\u007f]+$/, 'must be one line without control characters'),
      )
      .max(PLAN_LIMITS.maxAgentArgs)
      .optional(),
  })
  .refine((i) => i.strategy !== 'command' || i.command !== undefined, {
    error: 'the command strategy needs implementer.command',
    path: ['command'],
  })
  .refine((i) => i.strategy !== 'agent' || i.agent !== undefined, {
    error: `the agent strategy needs implementer.agent: one of ${CODING_AGENTS.join(', ')}`,
    path: ['agent'],
  })
  .refine((i) => i.strategy === 'agent' || AGENT_FIELDS.every((field) => i[field] === undefined), {
    error: 'implementer.agent, implementer.model and implementer.extra_args are for the agent strategy only',
    path: ['strategy'],
  })
  .meta({ id: 'PlanImplementer' });
export type PlanImplementer = z.infer<typeof PlanImplementer>;

/** A plan as users write it (YAML or JSON): a code change with its declared files. */
export const PlanSpec = z
  .strictObject({
    slug: Slug,
    title: z.string().trim().min(1).max(PLAN_LIMITS.maxTitle),
    description: z.string().max(PLAN_LIMITS.maxDescription).default(''),
    effort_level: EffortLevel,
    files: z.array(z.string().min(1).max(PLAN_LIMITS.maxPath)).min(1).max(PLAN_LIMITS.maxFiles),
    repo: PlanRepo,
    test_cmd: z.string().min(1).max(PLAN_LIMITS.maxCommand),
    implementer: PlanImplementer.default({ strategy: 'autofix' }),
    submission_id: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9._:-]+$/)
      .optional(),
  })
  .meta({ id: 'PlanSpec', description: 'A plan as users write it.' });
export type PlanSpec = z.infer<typeof PlanSpec>;
export type PlanSpecInput = z.input<typeof PlanSpec>;

export const SubmitAccepted = z.object({
  status: z.literal('accepted'),
  plan: Slug,
  event_id: EventId,
  submission_id: z.string(),
  /** True when this submission_id was seen before: nothing new was started. */
  duplicate: z.boolean(),
});
export const SubmitRejected = z.object({
  status: z.literal('rejected'),
  plan: z.string().optional(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).min(1),
});
/** The reply to a request on `<ns>.v1.plans.submit`. */
export const SubmitReply = z.discriminatedUnion('status', [SubmitAccepted, SubmitRejected]);
export type SubmitReply = z.infer<typeof SubmitReply>;
