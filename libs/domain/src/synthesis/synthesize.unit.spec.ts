import { describe, expect, it } from '@jest/globals';
import { type CriticCoverage, Letter } from '@rloop/contracts';
import { renderLetterMarkdown } from '../letter/markdown.js';
import { finding } from '../testing/builders.test-helpers.js';
import { synthesizeLetter, type SynthesisInput } from './synthesize.js';

const input = (reports: SynthesisInput['reports'], overrides: Partial<SynthesisInput> = {}): SynthesisInput => ({
  letter_id: 'd_letter00000001',
  plan: 'add-billing',
  run_id: '01JRUN0000000000000000000A',
  round: 2,
  phase: 'critical',
  k: 3,
  commit: 'a'.repeat(40),
  created_at: '2026-11-30T10:00:00.000Z',
  reports,
  ...overrides,
});

describe('the synthesizer', () => {
  it('given findings of several categories, when synthesized, then Security outranks Correctness outranks Readability and the letter is valid', () => {
    const letter = synthesizeLetter(
      input([
        {
          critic_id: 'toolchain/compiler-linter',
          core: true,
          outcome: 'reported',
          findings: [
            finding({ id: 'r', category: 'readability', line_range: { start: 1, end: 1 } }),
            finding({ id: 'c', category: 'correctness', line_range: { start: 2, end: 2 } }),
          ],
        },
        {
          critic_id: 'security/sast-scanner',
          core: true,
          outcome: 'reported',
          findings: [
            finding({
              id: 's',
              category: 'security',
              raised_by: 'security/sast-scanner',
              finding_type: 'sast/sql-injection',
            }),
          ],
        },
      ]),
    );
    expect(letter.findings.map((f) => f.id)).toEqual(['s', 'c', 'r']);
    expect(Letter.safeParse(letter).success).toBe(true);
    expect(letter.complete).toBe(true);
  });

  it("given a critic with more findings than K, when synthesized, then only that critic's top K for the phase are kept", () => {
    const many = Array.from({ length: 5 }, (_, i) =>
      finding({ id: `f${i}`, line_range: { start: i + 1, end: i + 1 }, score: 7 + (i % 4) }),
    );
    const medium = finding({ id: 'm', severity: 'medium', score: 5, line_range: { start: 50, end: 50 } });
    const letter = synthesizeLetter(
      input([{ critic_id: 'toolchain/compiler-linter', core: true, outcome: 'reported', findings: [...many, medium] }]),
    );
    expect(letter.findings).toHaveLength(3);
    expect(letter.findings.every((f) => f.severity === 'critical')).toBe(true);
    expect(letter.critics[0]).toMatchObject({ findings_total: 6, findings_kept: 3 });
  });

  it('given two critics flagging the same defect at the same place, when synthesized, then one finding remains and names the other', () => {
    const a = finding({
      id: 'a',
      finding_type: 'secret/aws-key',
      raised_by: 'security/secrets-detector',
      category: 'security',
    });
    const b = finding({
      id: 'b',
      finding_type: 'secret/aws-key',
      raised_by: 'security/sast-scanner',
      category: 'security',
    });
    const letter = synthesizeLetter(
      input([
        { critic_id: 'security/secrets-detector', core: true, outcome: 'reported', findings: [a] },
        { critic_id: 'security/sast-scanner', core: true, outcome: 'reported', findings: [b] },
      ]),
    );
    expect(letter.findings).toHaveLength(1);
    expect(letter.findings[0]?.related_findings).toHaveLength(1);
  });

  it('given a core critic that failed, when synthesized, then the letter is incomplete and the summary says who did not report', () => {
    const letter = synthesizeLetter(
      input([
        { critic_id: 'toolchain/compiler-linter', core: true, outcome: 'reported', findings: [] },
        {
          critic_id: 'security/sast-scanner',
          core: true,
          outcome: 'timed_out',
          findings: [],
          message: 'no answer in 120 s',
        },
      ]),
    );
    expect(letter.complete).toBe(false);
    expect(letter.summary).toContain('security/sast-scanner (timed out: no answer in 120 s)');
    expect(letter.summary).toContain('cannot count as clean');
  });

  it('given the final sweep, when synthesized, then every severity is kept without a K limit', () => {
    const findings = [
      finding({ id: 'c' }),
      finding({ id: 'm', severity: 'medium', score: 5, line_range: { start: 9, end: 9 } }),
      finding({ id: 'l', severity: 'low', score: 2, line_range: { start: 12, end: 12 } }),
    ];
    const letter = synthesizeLetter(
      input([{ critic_id: 'toolchain/compiler-linter', core: true, outcome: 'reported', findings }], {
        phase: 'final_sweep',
        k: null,
      }),
    );
    expect(letter.counts).toEqual({ critical: 1, medium: 1, low: 1 });
  });

  it('given findings that say which deterministic fix applies, when synthesized and rendered, then the letter carries it and says who acts on a finding without one', () => {
    const findings = [
      finding({
        id: 'codemod',
        finding_type: 'deprecation/substr',
        autofix: 'codemod',
        autofix_note: 'codemod string-substr: substr(start) → slice(start)',
      }),
      finding({
        id: 'none',
        finding_type: 'deprecation/exists',
        line_range: { start: 7, end: 7 },
        autofix: 'none',
        autofix_note: 'fs.exists passes its callback a boolean',
      }),
    ];
    const letter = synthesizeLetter(
      input([{ critic_id: 'toolchain/compiler-linter', core: true, outcome: 'reported', findings }], {
        phase: 'final_sweep',
        k: null,
      }),
    );
    expect(letter.findings.map((f) => [f.id, f.autofix])).toEqual([
      ['codemod', 'codemod'],
      ['none', 'none'],
    ]);
    const markdown = renderLetterMarkdown(letter);
    expect(markdown).toContain(
      '**Deterministic fix:** a codemod (the autofix strategy applies it) — codemod string-substr: substr(start) → slice(start)',
    );
    expect(markdown).toContain(
      '**Deterministic fix:** none: a person, the anthropic strategy or a coding agent must decide — fs.exists passes its callback a boolean',
    );
  });

  describe('what the critics covered', () => {
    const coverage = (overrides: Partial<CriticCoverage> = {}): CriticCoverage => ({
      considered: 3,
      analysed: 2,
      unsupported: 0,
      skipped: [{ file: 'src/big.js', reason: 'too_large', detail: '5000000 bytes, over the 4194304-byte bound' }],
      skipped_total: 1,
      max_file_bytes: 4_194_304,
      max_file_bytes_configured: false,
      ...overrides,
    });
    const clean = (c: CriticCoverage): SynthesisInput['reports'] => [
      { critic_id: 'security/sast-scanner', core: true, outcome: 'reported', findings: [], coverage: c },
      {
        critic_id: 'toolchain/compiler-linter',
        core: true,
        outcome: 'reported',
        findings: [],
        coverage: { ...c, skipped: [], skipped_total: 0, analysed: 3 },
      },
    ];

    it('given a file of the plan skipped as too large under the default bound, when synthesized, then the clean letter is incomplete and says which file, by whom', () => {
      const letter = synthesizeLetter(input(clean(coverage())));
      expect(letter.findings).toEqual([]);
      expect(letter.complete).toBe(false);
      expect(letter.summary).toContain(
        'Not analysed: src/big.js (too large: 5000000 bytes, over the 4194304-byte bound) by security/sast-scanner.',
      );
      expect(letter.summary).toContain('cannot count as clean');
      expect(letter.critics[0]?.coverage).toEqual(coverage());
      expect(Letter.safeParse(letter).success).toBe(true);
    });

    it('given the operator set the bound, when a file is skipped as too large, then the round can still be clean', () => {
      expect(synthesizeLetter(input(clean(coverage({ max_file_bytes_configured: true })))).complete).toBe(true);
    });

    it('given files a critic could not read, parse or never read, then the round is incomplete; given generated, missing or linked-out files, it is not', () => {
      for (const reason of ['not_read', 'unreadable', 'parse_error', 'binary'] as const) {
        expect(synthesizeLetter(input(clean(coverage({ skipped: [{ file: 'src/a.ts', reason }] })))).complete).toBe(
          false,
        );
      }
      for (const reason of ['generated', 'outside_checkout', 'missing'] as const) {
        expect(synthesizeLetter(input(clean(coverage({ skipped: [{ file: 'src/a.ts', reason }] })))).complete).toBe(
          true,
        );
      }
    });

    it("given a critic's long failure message, when synthesized, then the letter keeps what its contract holds", () => {
      const letter = synthesizeLetter(
        input([
          {
            critic_id: 'security/sast-scanner',
            core: true,
            outcome: 'failed',
            findings: [],
            message: 'x'.repeat(4000),
          },
        ]),
      );
      expect(Letter.safeParse(letter).success).toBe(true);
    });

    it('given files the repository excluded and a finding it dismissed, when synthesized, then the letter carries coverage, suppressions and the exclusions, and an exclusion is no gap', () => {
      const dismissed = finding({ file: 'src/a.ts', severity: 'medium' });
      const suppression = {
        fingerprint: dismissed.fingerprint,
        finding_type: dismissed.finding_type,
        raised_by: 'security/sast-scanner',
        severity: 'medium' as const,
        file: 'src/a.ts',
        line: 1,
        title: dismissed.title,
        kind: 'inline' as const,
        reason: 'reviewed by hand',
        source: 'src/a.ts:1',
      };
      const repoConfig = { config: '.rloop.yaml', excluded_files: 3, overrides: [], refused: [] };
      const full = coverage({ analysed: 3, skipped: [], skipped_total: 0 });
      const letter = synthesizeLetter(
        input([
          {
            critic_id: 'security/sast-scanner',
            core: true,
            outcome: 'reported',
            findings: [],
            coverage: full,
            suppressed: [suppression],
            repo_config: repoConfig,
          },
          {
            critic_id: 'toolchain/compiler-linter',
            core: true,
            outcome: 'reported',
            findings: [],
            coverage: full,
            repo_config: repoConfig,
          },
        ]),
      );
      expect(letter).toMatchObject({ complete: true, suppressed: [suppression], repo_config: repoConfig });
      expect(letter.critics.map((c) => c.coverage)).toEqual([full, full]);
      expect(letter.summary).toContain('1 finding dismissed by the repository');
      expect(letter.summary).toContain(
        "3 files excluded by the repository's configuration (not under review, so not counted as unanalysed).",
      );
      expect(Letter.safeParse(letter).success).toBe(true);
      const markdown = renderLetterMarkdown(letter);
      expect(markdown).toContain('| security/sast-scanner (core) | reported | 0/0 | 3/3 |');
      expect(markdown).toContain('## Dismissed by the repository (not to fix)');
      expect(markdown).toContain('**Repository configuration** (`.rloop.yaml`): 3 file(s) excluded.');
      expect(markdown).not.toContain('## Files not analysed');
    });

    it('renders the coverage for people: files analysed per critic, and each skipped file with why', () => {
      const markdown = renderLetterMarkdown(
        synthesizeLetter(input(clean(coverage({ considered: 4, unsupported: 1 })))),
      );
      expect(markdown).toContain('| security/sast-scanner (core) | reported | 0/0 | 2/4 (1 not its kind, 1 skipped) |');
      expect(markdown).toContain('## Files not analysed');
      expect(markdown).toContain(
        '- **not reviewed:** `security/sast-scanner` — src/big.js (too large: 5000000 bytes, over the 4194304-byte bound)',
      );
    });
  });
});
