import { z } from 'zod';

/** A plan's slug: lowercase words joined by single dashes, at most 64 characters. */
export const Slug = z
  .string()
  .max(64)
  .regex(
    /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
    'must be lowercase letters, digits and single dashes (no dots, slashes or spaces)',
  );
export type Slug = z.infer<typeof Slug>;

/**
 * Plan key used in envelopes and subjects: a slug, or a reserved key for events that belong to
 * no valid plan (`_invalid`: a rejection whose slug was unusable; `_critics`: the critic registry).
 */
export const PlanKey = z.union([Slug, z.enum(['_invalid', '_critics'])]);
export type PlanKey = z.infer<typeof PlanKey>;

export const RESERVED_PLAN_KEYS = { invalid: '_invalid', critics: '_critics' } as const;

/** Event ids: ULIDs for fresh events, `d_…` hashes for decisions that must be the same on every replica. */
export const EventId = z.string().regex(/^[0-9A-Za-z_-]{10,64}$/, 'must be 10-64 characters of [0-9A-Za-z_-]');
export type EventId = z.infer<typeof EventId>;

export const Timestamp = z.iso.datetime({ offset: true });

export const GitSha = z.string().regex(/^[0-9a-f]{40}$/, 'must be a full 40-character git commit id');

/** A critic's id, e.g. `security/sast-scanner`: lowercase segments separated by slashes. */
export const CriticId = z
  .string()
  .max(128)
  .regex(
    /^[a-z0-9][a-z0-9-]*(?:\/[a-z0-9][a-z0-9-]*)*$/,
    'must be lowercase segments joined by slashes, e.g. security/sast-scanner',
  );
export type CriticId = z.infer<typeof CriticId>;

/** A repository-relative path with forward slashes that stays inside the repository. */
export const RepoPath = z
  .string()
  .min(1)
  .max(1024)
  .refine(
    (p) => !p.startsWith('/') && !/^[A-Za-z]:/.test(p) && !p.split('/').includes('..'),
    'must be relative to the repository and stay inside it',
  )
  .meta({ id: 'RepoPath' });

export const Count = z.int().min(0);
export const PositiveInt = z.int().min(1);
