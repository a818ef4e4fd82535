// The example plans under examples/plans stay valid against the contracts and get the gate
// verdicts their comments promise, against the sample repositories they point at.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { PlanSpec } from '@rloop/contracts';
import { RefinementTriggers, TrustConfig, commandIssues, decideGate, resolvePlanFiles } from '@rloop/domain';
import { type SampleVariant, type TempDir, gitOut, sampleRepo, tempDir } from './testing/repos.test-helpers.js';

const root = (path: string): string => fileURLToPath(new URL(`../../../${path}`, import.meta.url));
const plan = (name: string): unknown => parse(readFileSync(root(`examples/plans/${name}`), 'utf8'));
const triggers = RefinementTriggers.parse(parse(readFileSync(root('config/refinement-triggers.yaml'), 'utf8')));
const trust = TrustConfig.parse(parse(readFileSync(root('config/trust.yaml'), 'utf8')));

describe('the example plans', () => {
  let tmp: TempDir;
  const files = new Map<SampleVariant, string[]>();

  beforeAll(async () => {
    tmp = await tempDir('examples');
    for (const variant of ['fixable', 'unfixable'] as const) {
      const repo = await sampleRepo(tmp.path, variant);
      files.set(variant, gitOut(repo.dir, ['ls-files']).split('\n'));
    }
  });

  afterAll(() => tmp.cleanup());

  it('are all covered here', () => {
    expect(readdirSync(root('examples/plans')).sort()).toEqual([
      'bypassed.yaml',
      'fixable-high-effort.yaml',
      'invalid.yaml',
      'risk-surface.yaml',
      'unfixable.yaml',
    ]);
  });

  it.each([
    ['fixable-high-effort.yaml', 'fixable', 'run', ['effort_level', 'risk_surface']],
    ['unfixable.yaml', 'unfixable', 'run', ['effort_level', 'risk_surface']],
    ['bypassed.yaml', 'fixable', 'bypass', ['escape_phrase', 'effort_level']],
    ['risk-surface.yaml', 'fixable', 'run', ['risk_surface']],
  ] as const)('%s is a valid plan on the %s sample and the gate says %s', (name, variant, verdict, rules) => {
    const spec = PlanSpec.parse(plan(name));
    expect(spec.repo.path).toBe(`../../.rloop/samples/${variant}`);
    const resolved = resolvePlanFiles(spec.files, files.get(variant) ?? []);
    expect(resolved.issues).toEqual([]);
    const decision = decideGate(
      { title: spec.title, description: spec.description, effort_level: spec.effort_level, files: resolved.files },
      triggers,
    );
    expect(decision.verdict).toBe(verdict);
    expect(decision.rules.map((r) => r.rule)).toEqual(rules);
    // `npm run demo` and the README's quick start run these plans: config/trust.yaml allows their commands and their repositories.
    expect(commandIssues(spec, trust.commands.allow)).toEqual([]);
    expect(trust.repositories.local_roots).toContain('samples');
  });

  it('invalid.yaml is rejected with every one of its problems', () => {
    const result = PlanSpec.safeParse(plan('invalid.yaml'));
    expect(result.success).toBe(false);
    const paths = (result.error?.issues ?? []).map((i) => i.path.join('.'));
    expect(paths.sort()).toEqual([
      '',
      'effort_level',
      'files',
      'implementer.command',
      'repo',
      'slug',
      'test_cmd',
      'title',
    ]);
  });
});
