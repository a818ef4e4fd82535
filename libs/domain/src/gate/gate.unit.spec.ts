import { describe, expect, it } from '@jest/globals';
import { RefinementTriggers } from '../config/triggers.js';
import { decideGate } from './gate.js';
import { resolvePlanFiles } from './plan-files.js';

const triggers = RefinementTriggers.parse({
  effort_levels: ['high', 'xhigh'],
  escape_phrases: ['hotfix', 'trivial fix', 'urgent', 'quick fix'],
  risk_surfaces: {
    money_and_access: ['**/{auth,billing,stripe,webhook,webhooks}/**', '**/*{-,_,.}{auth,billing,stripe}.*'],
    pii: ['**/{profile,pii}/**'],
  },
});

const plan = (overrides: Partial<Parameters<typeof decideGate>[0]> = {}) => ({
  title: 'Tidy the docs',
  description: 'Rewords the README',
  effort_level: 'low' as const,
  files: ['docs/readme.md'],
  ...overrides,
});

describe('the gate (spec Decision 7)', () => {
  it('given a low-effort plan off every risk surface, when gated, then it gets a single-pass review', () => {
    expect(decideGate(plan(), triggers)).toEqual({ verdict: 'single_pass', rules: [] });
  });

  it('given a high-effort plan, when gated, then the loop runs because of its effort level', () => {
    const decision = decideGate(plan({ effort_level: 'high' }), triggers);
    expect(decision.verdict).toBe('run');
    expect(decision.rules).toEqual([{ rule: 'effort_level', detail: 'effort level high runs the loop' }]);
  });

  it('given a one-line low-effort change to a Stripe webhook, when gated, then the risk surface runs the loop and names file, glob and category', () => {
    const decision = decideGate(plan({ files: ['src/stripe/webhook.ts', 'docs/readme.md'] }), triggers);
    expect(decision.verdict).toBe('run');
    expect(decision.rules).toEqual([
      {
        rule: 'risk_surface',
        detail: 'src/stripe/webhook.ts is on the money_and_access risk surface',
        file: 'src/stripe/webhook.ts',
        glob: '**/{auth,billing,stripe,webhook,webhooks}/**',
        category: 'money_and_access',
      },
    ]);
  });

  it('given an escape phrase in the title of a risky plan, when gated, then the loop is bypassed and the overridden rules are still recorded', () => {
    const decision = decideGate(
      plan({ title: 'HOTFIX: billing rounding', effort_level: 'xhigh', files: ['src/billing/round.ts'] }),
      triggers,
    );
    expect(decision.verdict).toBe('bypass');
    expect(decision.rules.map((r) => r.rule)).toEqual(['escape_phrase', 'effort_level', 'risk_surface']);
  });

  it('given a word that only contains an escape phrase, when gated, then it does not bypass', () => {
    expect(
      decideGate(plan({ title: 'Collect hotfixes into one release', effort_level: 'high' }), triggers).verdict,
    ).toBe('run');
  });

  it('given a multi-word escape phrase split over whitespace in the description, when gated, then it bypasses', () => {
    expect(decideGate(plan({ description: 'A quick\nfix for the typo', effort_level: 'high' }), triggers).verdict).toBe(
      'bypass',
    );
  });

  it('given a file whose name merely contains a keyword, when gated, then it is not on the surface', () => {
    expect(decideGate(plan({ files: ['src/author.ts', 'src/profiled.ts'] }), triggers).verdict).toBe('single_pass');
  });
});

describe("resolving a plan's files at its ref", () => {
  const repo = ['src/a.ts', 'src/b.ts', 'src/billing/invoice.ts', 'README.md'];

  it('given globs and paths, when resolved, then the files are the sorted union', () => {
    expect(resolvePlanFiles(['src/billing', 'README.md', 'src/*.ts'], repo)).toEqual({
      files: ['README.md', 'src/a.ts', 'src/b.ts', 'src/billing/invoice.ts'],
      issues: [],
    });
  });

  it('given paths outside the repository or broken globs, when resolved, then each problem is named by index', () => {
    const { issues } = resolvePlanFiles(['/etc/passwd', '../x.ts', 'src/[a.ts', 'lib/**'], repo);
    expect(issues.map((i) => i.path)).toEqual(['files.0', 'files.1', 'files.2']);
    expect(issues[0]?.message).toContain('relative');
    expect(issues[1]?.message).toContain('inside the repository');
    expect(issues[2]?.message).toContain('not a valid glob');
  });

  it('given a pattern that matches nothing, when resolved, then it is reported as an error', () => {
    expect(resolvePlanFiles(['lib/**'], repo).issues).toEqual([
      { path: 'files.0', message: '"lib/**" matches no file at the plan\'s ref' },
    ]);
  });
});
