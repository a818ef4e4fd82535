import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import ajvDraft04 from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';
import { z } from 'zod';
import { Letter } from '@rloop/contracts';
import {
  RULE_PREFIX_OWNERS,
  createSarifCritic,
  describeRule,
  finalizeFindings,
  letterToSarif,
  runCritic,
  sarifToDrafts,
  SarifLog,
} from '../index.js';
import { fixtureRepo } from '../__fixtures__/repo.js';
import { synthesizeLetter } from '@rloop/domain';

const TOOL_LOG = {
  version: '2.1.0',
  runs: [
    {
      tool: {
        driver: {
          name: 'Semgrep',
          rules: [
            {
              id: 'js.express.xss',
              properties: { tags: ['security', 'external/cwe/cwe-79'], 'security-severity': '9.1' },
            },
            { id: 'js.style.var', properties: { tags: ['style'] } },
          ],
        },
      },
      results: [
        {
          ruleId: 'js.express.xss',
          level: 'error',
          message: { text: 'User input reaches res.send' },
          locations: [
            { physicalLocation: { artifactLocation: { uri: 'src/app.js' }, region: { startLine: 3, endLine: 3 } } },
          ],
          partialFingerprints: { primaryLocationLineHash: '39fa2ee980eb94b0:1' },
        },
        {
          ruleId: 'js.style.var',
          level: 'warning',
          message: { text: 'use let' },
          locations: [{ physicalLocation: { artifactLocation: { uri: 'src/app.js' }, region: { startLine: 1 } } }],
        },
        {
          ruleId: 'js.style.var',
          level: 'note',
          message: { text: 'note only' },
          locations: [{ physicalLocation: { artifactLocation: { uri: 'src/app.js' }, region: { startLine: 2 } } }],
        },
        {
          ruleId: 'js.style.var',
          level: 'error',
          message: { text: 'outside' },
          locations: [{ physicalLocation: { artifactLocation: { uri: '/elsewhere/x.js' } } }],
        },
      ],
    },
  ],
};

describe('SARIF in', () => {
  it('maps levels to severities (warnings are critical, Decision 8), rule ids to finding types and partial fingerprints to location hashes', () => {
    const { drafts, unlocated } = sarifToDrafts(SarifLog.parse(TOOL_LOG), '/repo');
    expect(unlocated).toBe(1);
    expect(drafts.map((d) => [d.finding_type, d.severity, d.score, d.category, d.line_range.start])).toEqual([
      ['semgrep/js.express.xss', 'critical', 9, 'security', 3],
      ['semgrep/js.style.var', 'critical', 7, 'readability', 1],
      ['semgrep/js.style.var', 'low', 2, 'readability', 2],
    ]);
    expect(drafts[0]?.location_hash).toBe('39fa2ee980eb94b0');
  });

  it('runs a SARIF-writing command as a critic; a missing tool is not runnable', async () => {
    const repo = fixtureRepo({
      'src/app.js': 'var a = 1;\nlet b = 2;\nres.send(req.query.x);\n',
      'tool.mjs': `process.stdout.write(${JSON.stringify(JSON.stringify(TOOL_LOG))}); process.exit(1);\n`,
    });
    try {
      const context = {
        repoDir: repo.dir,
        commit: '0'.repeat(40),
        files: ['src/app.js'],
        phase: 'final_sweep' as const,
      };
      const ok = await runCritic(
        createSarifCritic({ id: 'external/semgrep', command: process.execPath, args: ['tool.mjs'] }),
        context,
      );
      expect(ok.status === 'reported' && ok.findings.map((f) => f.finding_type)).toEqual([
        'semgrep/js.express.xss',
        'semgrep/js.style.var',
        'semgrep/js.style.var',
      ]);
      const missing = await runCritic(
        createSarifCritic({ id: 'external/nope', command: 'rloop-no-such-tool', args: [] }),
        context,
      );
      expect(missing).toMatchObject({ status: 'failed', reason: 'not_runnable' });
    } finally {
      repo.remove();
    }
  });
});

// The official SARIF 2.1.0 JSON Schema (draft-04), as the @microsoft/jest-sarif package ships it.
const OFFICIAL_SCHEMA = JSON.parse(
  readFileSync(
    createRequire(import.meta.url).resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'),
    'utf8',
  ),
) as object;

function officialSchemaErrors(log: unknown): string[] {
  // unicodeRegExp off: the schema's language pattern has a stray ']' that only non-unicode regular expressions accept.
  // Both packages are CommonJS whose module.exports is also its own `.default`.
  const ajv = new ajvDraft04.default({ allErrors: true, strict: false, unicodeRegExp: false });
  ajvFormats.default(ajv);
  const validate = ajv.compile(OFFICIAL_SCHEMA);
  return validate(log) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

const nonEmpty = z.string().min(1);
// What GitHub code scanning marks "Required" in "SARIF support for code scanning" (an empty string is not accepted).
const GitHubRequired = z.object({
  $schema: nonEmpty,
  version: z.literal('2.1.0'),
  runs: z
    .array(
      z.object({
        tool: z.object({
          driver: z.object({
            name: nonEmpty,
            rules: z.array(
              z.object({
                id: nonEmpty,
                shortDescription: z.object({ text: nonEmpty.max(1024) }),
                fullDescription: z.object({ text: nonEmpty.max(1024) }),
                help: z.object({ text: nonEmpty, markdown: nonEmpty }),
              }),
            ),
          }),
        }),
        results: z.array(
          z.object({
            message: z.object({ text: nonEmpty }),
            locations: z
              .array(
                z.object({
                  physicalLocation: z.object({
                    artifactLocation: z.object({ uri: nonEmpty }),
                    region: z.object({
                      startLine: z.int().min(1),
                      startColumn: z.int().min(1),
                      endLine: z.int().min(1),
                      endColumn: z.int().min(1),
                    }),
                  }),
                }),
              )
              .min(1)
              .max(10),
            partialFingerprints: z.record(z.string(), nonEmpty),
          }),
        ),
      }),
    )
    .min(1),
});

function letterOf(
  findings: ReturnType<typeof finalizeFindings>,
  outcomes: { critic_id: string; outcome: 'reported' | 'failed' }[] = [
    { critic_id: 'security/sast-scanner', outcome: 'reported' },
  ],
): Letter {
  return Letter.parse(
    synthesizeLetter({
      letter_id: 'd_0123456789abcdef0123456789abcdef',
      plan: 'demo',
      run_id: 'd_0123456789abcdef0123456789abcdee',
      round: 1,
      phase: 'final_sweep',
      k: null,
      commit: 'a'.repeat(40),
      created_at: '2026-11-30T00:00:00.000Z',
      reports: outcomes.map((o) => ({
        critic_id: o.critic_id,
        core: true,
        outcome: o.outcome,
        findings: o.outcome === 'reported' ? findings.filter((f) => f.raised_by === o.critic_id) : [],
        ...(o.outcome === 'failed' ? { message: 'crashed: boom' } : {}),
      })),
    }),
  );
}

const LINES = ['const a = 1;', 'let b = 2;', 'res.send(req.query.x);', ''];

describe('SARIF out', () => {
  const findings = finalizeFindings(
    { id: 'security/sast-scanner' },
    sarifToDrafts(SarifLog.parse(TOOL_LOG), '/repo').drafts,
    () => LINES.join('\n'),
  );
  const readLine = (_file: string, line: number): string | null => LINES[line - 1] ?? null;

  it('validates against the official SARIF 2.1.0 schema and has every property GitHub requires', () => {
    const sarif = letterToSarif(letterOf(findings), { toolVersion: '0.1.0', readLine });
    expect(officialSchemaErrors(sarif)).toEqual([]);
    const parsed = GitHubRequired.parse(sarif);
    const run = parsed.runs[0];
    expect(run?.results).toHaveLength(3);
    expect(sarif).toMatchObject({
      runs: [
        {
          tool: {
            driver: {
              name: 'rloop',
              version: '0.1.0',
              semanticVersion: '0.1.0',
              informationUri: 'https://refinement-loop.dev',
            },
          },
        },
      ],
    });
    // Whole-line findings end after the line's last character; the tool's own level is kept.
    expect(run?.results[0]?.locations[0]?.physicalLocation.region).toEqual({
      startLine: 3,
      startColumn: 1,
      endLine: 3,
      endColumn: LINES[2]!.length + 1,
    });
  });

  it('puts our fingerprints under our own keys and leaves primaryLocationLineHash to the upload action', () => {
    const letter = letterOf(findings);
    const results =
      (
        letterToSarif(letter, { toolVersion: '0.1.0' }) as {
          runs: { results: { partialFingerprints: Record<string, string> }[] }[];
        }
      ).runs[0]?.results ?? [];
    expect(results[0]?.partialFingerprints).toEqual({
      'rloopFingerprint/v1': letter.findings[0]?.fingerprint,
      'rloopLocationHash/v1': letter.findings[0]?.location_hash,
    });
    expect(JSON.stringify(results)).not.toContain('primaryLocationLineHash');
  });

  it('describes each rule from its id alone, the same in every run whatever was found', () => {
    const rulesOf = (letter: Letter): Record<string, unknown> =>
      Object.fromEntries(
        (
          (
            letterToSarif(letter, { toolVersion: '0.1.0' }) as {
              runs: { tool: { driver: { rules: { id: string }[] } } }[];
            }
          ).runs[0]?.tool.driver.rules ?? []
        ).map((r) => [r.id, r]),
      );
    const first = rulesOf(letterOf(findings));
    // Another run: the same rules, other findings (other lines, other messages, one missing).
    const other = finalizeFindings(
      { id: 'security/sast-scanner' },
      sarifToDrafts(
        SarifLog.parse({
          ...TOOL_LOG,
          runs: [
            {
              ...TOOL_LOG.runs[0],
              results: [
                {
                  ruleId: 'js.style.var',
                  level: 'note',
                  message: { text: 'something else entirely' },
                  locations: [
                    { physicalLocation: { artifactLocation: { uri: 'src/b.js' }, region: { startLine: 9 } } },
                  ],
                },
              ],
            },
          ],
        }),
        '/repo',
      ).drafts,
      () => null,
    );
    const second = rulesOf(letterOf(other));
    expect(Object.keys(second)).toEqual(['semgrep/js.style.var']);
    expect(second['semgrep/js.style.var']).toEqual(first['semgrep/js.style.var']);
    for (const rule of Object.values(first))
      expect(rule).toMatchObject({
        help: { text: expect.stringContaining('rloop-ignore'), markdown: expect.any(String) },
      });
  });

  it("describes the built-in critics' rules from their own text: each duplicate kind, a taint rule, a key in use", () => {
    const duplicates = ['duplicate/within-change', 'duplicate/against-repo', 'duplicate/repeated-shape'].map(
      (id) => describeRule(id).shortDescription,
    );
    expect(new Set(duplicates).size).toBe(3);
    expect(describeRule('duplicate/repeated-shape').fullDescription).toMatch(/type-only shape/);
    expect(describeRule('sast/ssrf')).toMatchObject({
      shortDescription: 'Server-side request forgery',
      level: 'error',
    });
    expect([
      describeRule('secret/hardcoded-key').shortDescription,
      describeRule('secret/hardcoded-key-fallback').shortDescription,
      describeRule('secret/aws-access-key').shortDescription,
    ]).toEqual(['Hard-coded key in use', 'Hard-coded fallback for a key', 'Committed secret (aws-access-key)']);
  });

  it("describes the language toolchains', advisories', complexity and coverage rules with their own text and documentation", () => {
    // Every rule prefix a built-in critic raises has text of its own (a taint rule's is per rule id).
    const generic = Object.keys(RULE_PREFIX_OWNERS).filter(
      (prefix) =>
        !['sast', 'validation'].includes(prefix) &&
        /reported by an LLM reviewer/.test(describeRule(`${prefix}/x`).fullDescription),
    );
    expect(generic).toEqual([]);
    expect(describeRule('shellcheck/SC2164')).toMatchObject({
      shortDescription: 'ShellCheck SC2164',
      helpUri: 'https://www.shellcheck.net/wiki/SC2164',
      level: 'warning',
    });
    expect(describeRule('clippy/needless_return')).toMatchObject({
      helpUri: 'https://rust-lang.github.io/rust-clippy/master/index.html#needless_return',
    });
    expect(describeRule('rustc/E0308')).toMatchObject({
      helpUri: 'https://doc.rust-lang.org/error_codes/E0308.html',
      level: 'error',
    });
    expect(describeRule('staticcheck/SA4006')).toMatchObject({
      helpUri: 'https://staticcheck.dev/docs/checks/#SA4006',
    });
    expect(describeRule('govet/printf')).toMatchObject({
      helpUri: 'https://pkg.go.dev/golang.org/x/tools/go/analysis/passes/printf',
    });
    expect(describeRule('pyright/reportAttributeAccessIssue')).toMatchObject({
      shortDescription: 'Pyright reportAttributeAccessIssue',
      level: 'error',
    });
    expect(describeRule('ruff/F401').helpText).toMatch(/ruff check --fix/);
    // OSV ids link to their advisory; a malicious package is the most severe security rule.
    expect(describeRule('cve/GHSA-vh95-rmgr-6w4m').helpUri).toBe('https://github.com/advisories/GHSA-vh95-rmgr-6w4m');
    expect(describeRule('cve/RUSTSEC-2021-0145').helpUri).toBe('https://osv.dev/vulnerability/RUSTSEC-2021-0145');
    expect(describeRule('malicious-package/MAL-2022-1')).toMatchObject({
      securitySeverity: '10.0',
      helpUri: 'https://osv.dev/vulnerability/MAL-2022-1',
    });
    expect(describeRule('complexity/function')).toMatchObject({
      shortDescription: 'Function too complex',
      level: 'note',
    });
    const coverage = ['coverage/file-not-loaded', 'coverage/function-not-run', 'coverage/lines-not-run'].map(
      (id) => describeRule(id).shortDescription,
    );
    expect(new Set(coverage).size).toBe(3);
  });

  it('says executionSuccessful false only when a critic that ran failed', () => {
    const ok = letterToSarif(letterOf(findings), { toolVersion: '0.1.0' }) as {
      runs: { invocations: { executionSuccessful: boolean; toolExecutionNotifications: unknown[] }[] }[];
    };
    expect(ok.runs[0]?.invocations[0]).toEqual({ executionSuccessful: true, toolExecutionNotifications: [] });
    const failed = letterToSarif(
      letterOf(findings, [
        { critic_id: 'security/sast-scanner', outcome: 'reported' },
        { critic_id: 'quality/duplicate-code-detector', outcome: 'failed' },
      ]),
      { toolVersion: '0.1.0' },
    );
    expect(failed).toMatchObject({
      runs: [
        {
          invocations: [
            {
              executionSuccessful: false,
              toolExecutionNotifications: [
                { level: 'error', message: { text: 'quality/duplicate-code-detector did not finish: crashed: boom' } },
              ],
            },
          ],
        },
      ],
    });
    expect(officialSchemaErrors(failed)).toEqual([]);
  });
});
