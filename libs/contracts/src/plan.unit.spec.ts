import { describe, expect, it } from '@jest/globals';
import { PLAN_LIMITS, PlanSpec, type PlanSpecInput, SubmitReply } from './plan.js';
import { toIssues } from './parse.js';

const MINIMAL: PlanSpecInput = {
  slug: 'add-billing',
  title: 'Add billing',
  effort_level: 'high',
  files: ['src/billing/**'],
  repo: { path: '/srv/repos/shop' },
  test_cmd: 'npm test',
};

/** The issues a plan fails with, as `path: message` lines (what the gate replies). */
function problems(input: unknown): string[] {
  const result = PlanSpec.safeParse(input);
  return result.success ? [] : toIssues(result.error).map((i) => `${i.path}: ${i.message}`);
}

describe('PlanSpec', () => {
  it('fills in the defaults: autofix implementer, HEAD, empty description', () => {
    expect(PlanSpec.parse(MINIMAL)).toEqual({
      ...MINIMAL,
      description: '',
      repo: { path: '/srv/repos/shop', ref: 'HEAD' },
      implementer: { strategy: 'autofix' },
    });
  });

  it('keeps what the plan says over the defaults', () => {
    const plan = PlanSpec.parse({
      ...MINIMAL,
      description: 'Stripe checkout',
      repo: { url: 'https://example.com/shop.git', ref: 'release/2.1' },
      implementer: { strategy: 'command', command: 'make fix' },
      submission_id: 'ci-1234:attempt.2',
    });
    expect(plan).toMatchObject({
      description: 'Stripe checkout',
      repo: { url: 'https://example.com/shop.git', ref: 'release/2.1' },
      implementer: { strategy: 'command', command: 'make fix' },
      submission_id: 'ci-1234:attempt.2',
    });
  });

  it('trims the title and refuses one that is only whitespace', () => {
    expect(PlanSpec.parse({ ...MINIMAL, title: '  Add billing \n' }).title).toBe('Add billing');
    expect(problems({ ...MINIMAL, title: ' \t ' })).toEqual([expect.stringMatching(/^title: /)]);
  });

  it('rejects unknown keys at every level, naming where they are', () => {
    expect(problems({ ...MINIMAL, efort_level: 'low' })).toEqual(['(root): Unrecognized key: "efort_level"']);
    expect(problems({ ...MINIMAL, repo: { path: '/r', branch: 'main' } })).toEqual([
      'repo: Unrecognized key: "branch"',
    ]);
    expect(problems({ ...MINIMAL, implementer: { strategy: 'autofix', timeout: 5 } })).toEqual([
      'implementer: Unrecognized key: "timeout"',
    ]);
  });

  it('needs implementer.command for the command strategy', () => {
    expect(problems({ ...MINIMAL, implementer: { strategy: 'command' } })).toEqual([
      'implementer.command: the command strategy needs implementer.command',
    ]);
    expect(problems({ ...MINIMAL, implementer: { strategy: 'anthropic' } })).toEqual([]);
  });

  it('needs implementer.agent for the agent strategy, and takes its model and extra arguments', () => {
    expect(problems({ ...MINIMAL, implementer: { strategy: 'agent' } })).toEqual([
      'implementer.agent: the agent strategy needs implementer.agent: one of claude-code, codex, aider, gemini',
    ]);
    expect(problems({ ...MINIMAL, implementer: { strategy: 'agent', agent: 'cursor' } })).toEqual([
      expect.stringMatching(/^implementer\.agent: Invalid option/),
    ]);
    const plan = PlanSpec.parse({
      ...MINIMAL,
      implementer: { strategy: 'agent', agent: 'codex', model: 'gpt-5.1-codex', extra_args: ['--profile', 'ci'] },
    });
    expect(plan.implementer).toEqual({
      strategy: 'agent',
      agent: 'codex',
      model: 'gpt-5.1-codex',
      extra_args: ['--profile', 'ci'],
    });
  });

  it('refuses agent fields on another strategy, a model that is not a name, and arguments with control characters', () => {
    expect(problems({ ...MINIMAL, implementer: { strategy: 'autofix', agent: 'aider' } })).toEqual([
      'implementer.strategy: implementer.agent, implementer.model and implementer.extra_args are for the agent strategy only',
    ]);
    expect(problems({ ...MINIMAL, implementer: { strategy: 'agent', agent: 'aider', model: '$(rm -rf ~)' } })).toEqual([
      expect.stringMatching(/^implementer\.model: must be a model name/),
    ]);
    expect(
      problems({
        ...MINIMAL,
        implementer: { strategy: 'agent', agent: 'aider', extra_args: ['--yes\n--lint-cmd=sh'] },
      }),
    ).toEqual([expect.stringMatching(/^implementer\.extra_args\.0: must be one line/)]);
    expect(
      problems({
        ...MINIMAL,
        implementer: { strategy: 'agent', agent: 'aider', extra_args: Array.from({ length: 21 }, () => '-v') },
      }),
    ).toEqual([expect.stringMatching(/^implementer\.extra_args: /)]);
  });

  it('needs exactly one of repo.path and repo.url', () => {
    const oneOf = 'repo: give exactly one of repo.path and repo.url';
    expect(problems({ ...MINIMAL, repo: {} })).toEqual([oneOf]);
    expect(problems({ ...MINIMAL, repo: { ref: 'main' } })).toEqual([oneOf]);
    expect(problems({ ...MINIMAL, repo: { path: '/r', url: 'https://example.com/r.git' } })).toEqual([oneOf]);
    expect(problems({ ...MINIMAL, repo: { url: 'https://example.com/r.git' } })).toEqual([]);
  });

  it('reports every problem of a bad plan at once', () => {
    const paths = problems({
      slug: 'Add.Billing',
      title: '',
      effort_level: 'huge',
      files: [],
      repo: { path: '' },
      test_cmd: '',
    }).map((p) => p.split(':')[0]);
    expect(paths).toEqual(expect.arrayContaining(['slug', 'title', 'effort_level', 'files', 'repo.path', 'test_cmd']));
  });

  it.each([
    ['a dot', 'add.billing'],
    ['uppercase', 'Add-billing'],
    ['a slash', 'add/billing'],
    ['a double dash', 'add--billing'],
    ['a trailing dash', 'add-'],
    ['too many characters', 'a'.repeat(65)],
  ])('rejects a slug with %s', (_what, slug) => {
    expect(problems({ ...MINIMAL, slug })).toEqual([expect.stringMatching(/^slug: /)]);
  });

  it('holds plans to their size limits', () => {
    expect(
      problems({ ...MINIMAL, files: Array.from({ length: PLAN_LIMITS.maxFiles + 1 }, (_, i) => `f${i}.ts`) }),
    ).toEqual([expect.stringMatching(/^files: /)]);
    expect(problems({ ...MINIMAL, description: 'x'.repeat(PLAN_LIMITS.maxDescription + 1) })).toEqual([
      expect.stringMatching(/^description: /),
    ]);
    expect(problems({ ...MINIMAL, title: 'x'.repeat(PLAN_LIMITS.maxTitle + 1) })).toEqual([
      expect.stringMatching(/^title: /),
    ]);
    expect(problems({ ...MINIMAL, submission_id: 'has space' })).toEqual([expect.stringMatching(/^submission_id: /)]);
  });

  describe('with __proto__ and constructor keys from JSON', () => {
    const payloads = [
      [
        'the plan',
        `{"__proto__":{"polluted":true},${JSON.stringify(MINIMAL).slice(1)}`,
        '(root): Unrecognized key: "__proto__"',
      ],
      [
        'repo',
        JSON.stringify(MINIMAL).replace('"repo":{', '"repo":{"__proto__":{"polluted":true},'),
        'repo: Unrecognized key: "__proto__"',
      ],
      [
        'implementer',
        JSON.stringify({ ...MINIMAL, implementer: { strategy: 'autofix' } }).replace(
          '"implementer":{',
          '"implementer":{"__proto__":{"polluted":true},',
        ),
        'implementer: Unrecognized key: "__proto__"',
      ],
      [
        'the plan (constructor)',
        `{"constructor":{"prototype":{"polluted":true}},${JSON.stringify(MINIMAL).slice(1)}`,
        '(root): Unrecognized key: "constructor"',
      ],
    ] as const;

    it.each(payloads)(
      'rejects them in %s as unknown keys and never touches Object.prototype',
      (_where, json, problem) => {
        const input: unknown = JSON.parse(json);
        expect(problems(input)).toEqual([problem]);
        expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
        expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      },
    );
  });
});

describe('SubmitReply', () => {
  it('accepts an accepted reply and a rejected reply', () => {
    const accepted = {
      status: 'accepted',
      plan: 'add-billing',
      event_id: '01JABCDEFGHJKMNPQRSTVWXYZ0',
      submission_id: 'ci-1234',
      duplicate: false,
    };
    const rejected = {
      status: 'rejected',
      plan: 'Add.Billing',
      errors: [{ path: 'slug', message: 'must be lowercase letters, digits and single dashes' }],
    };
    expect(SubmitReply.parse(accepted)).toEqual(accepted);
    expect(SubmitReply.parse(rejected)).toEqual(rejected);
  });

  it('refuses a rejection without reasons and an unknown status', () => {
    expect(SubmitReply.safeParse({ status: 'rejected', errors: [] }).success).toBe(false);
    const unknown = SubmitReply.safeParse({ status: 'queued' });
    expect(unknown.error === undefined ? [] : toIssues(unknown.error).map((i) => i.path)).toEqual(['status']);
  });
});
