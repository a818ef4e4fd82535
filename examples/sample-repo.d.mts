// Types for sample-repo.mjs, so TypeScript tests and the CLI can import it.
export type SampleVariant = 'fixable' | 'unfixable';

export interface SampleRepo {
  /** Absolute path of the new repository. */
  readonly dir: string;
  /** Its single commit (the same id on every run: identity and dates are fixed). */
  readonly commit: string;
  readonly branch: 'main';
  readonly variant: SampleVariant;
}

export declare const SAMPLE_VARIANTS: readonly SampleVariant[];

/** Where `node examples/sample-repo.mjs <variant>` puts a variant (the path the example plans use). */
export declare function defaultSampleRepoDir(variant: SampleVariant): string;

/** Copies the variant's sources to targetDir and makes it a one-commit git repository on `main`. */
export declare function createSampleRepo(
  targetDir: string,
  variant: SampleVariant,
  options?: { readonly force?: boolean },
): Promise<SampleRepo>;
