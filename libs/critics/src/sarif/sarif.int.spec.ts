import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { Letter } from '@rloop/contracts';
import { createSarifCritic, finalizeFindings, letterToSarif, runCritic, sarifToDrafts, SarifLog } from '../index.js';
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
            { id: 'js.express.xss', properties: { tags: ['security', 'external/cwe/cwe-79'], 'security-severity': '9.1' } },
            { id: 'js.style.var', properties: { tags: ['style'] } },
          ],
        },
      },
      results: [
        {
          ruleId: 'js.express.xss',
          level: 'error',
          message: { text: 'User input reaches res.send' },
          locations: [{ physicalLocation: { artifactLocation: { uri: 'src/app.js' }, region: { startLine: 3, endLine: 3 } } }],
          partialFingerprints: { primaryLocationLineHash: '39fa2ee980eb94b0:1' },
        },
        { ruleId: 'js.style.var', level: 'warning', message: { text: 'use let' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'src/app.js' }, region: { startLine: 1 } } }] },
        { ruleId: 'js.style.var', level: 'note', message: { text: 'note only' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'src/app.js' }, region: { startLine: 2 } } }] },
        { ruleId: 'js.style.var', level: 'error', message: { text: 'outside' }, locations: [{ physicalLocation: { artifactLocation: { uri: '/elsewhere/x.js' } } }] },
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
    const repo = fixtureRepo({ 'src/app.js': 'var a = 1;\nlet b = 2;\nres.send(req.query.x);\n', 'tool.mjs': `process.stdout.write(${JSON.stringify(JSON.stringify(TOOL_LOG))}); process.exit(1);\n` });
    try {
      const context = { repoDir: repo.dir, commit: '0'.repeat(40), files: ['src/app.js'], phase: 'final_sweep' as const };
      const ok = await runCritic(createSarifCritic({ id: 'external/semgrep', command: process.execPath, args: ['tool.mjs'] }), context);
      expect(ok.status === 'reported' && ok.findings.map((f) => f.finding_type)).toEqual(['semgrep/js.express.xss', 'semgrep/js.style.var', 'semgrep/js.style.var']);
      const missing = await runCritic(createSarifCritic({ id: 'external/nope', command: 'rloop-no-such-tool', args: [] }), context);
      expect(missing).toMatchObject({ status: 'failed', reason: 'not_runnable' });
    } finally {
      repo.remove();
    }
  });
});

// The parts of SARIF 2.1.0 that GitHub code scanning requires of an upload.
const UploadableSarif = z.object({
  version: z.literal('2.1.0'),
  $schema: z.url(),
  runs: z
    .array(
      z.object({
        tool: z.object({ driver: z.object({ name: z.string().min(1), rules: z.array(z.object({ id: z.string(), defaultConfiguration: z.object({ level: z.enum(['error', 'warning', 'note']) }) })) }) }),
        results: z.array(
          z.object({
            ruleId: z.string(),
            ruleIndex: z.int().min(0),
            level: z.enum(['error', 'warning', 'note']),
            message: z.object({ text: z.string().min(1) }),
            locations: z.array(z.object({ physicalLocation: z.object({ artifactLocation: z.object({ uri: z.string() }), region: z.object({ startLine: z.int().min(1) }) }) })).min(1),
            partialFingerprints: z.record(z.string(), z.string()),
          }),
        ),
      }),
    )
    .length(1),
});

describe('SARIF out', () => {
  it('writes a letter as an uploadable SARIF 2.1.0 log with our fingerprint and location hash', () => {
    const findings = finalizeFindings({ id: 'security/sast-scanner' }, sarifToDrafts(SarifLog.parse(TOOL_LOG), '/repo').drafts, () => 'a\nb\nc\n');
    const letter = Letter.parse(
      synthesizeLetter({
        letter_id: 'd_0123456789abcdef0123456789abcdef',
        plan: 'demo',
        run_id: 'd_0123456789abcdef0123456789abcdee',
        round: 1,
        phase: 'final_sweep',
        k: null,
        commit: 'a'.repeat(40),
        created_at: '2026-11-30T00:00:00.000Z',
        reports: [
          { critic_id: 'security/sast-scanner', core: true, outcome: 'reported', findings },
          { critic_id: 'quality/code-reviewer', core: true, outcome: 'failed', findings: [], message: 'not configured' },
        ],
      }),
    );
    const sarif = letterToSarif(letter);
    const parsed = UploadableSarif.parse(sarif);
    const run = parsed.runs[0];
    expect(run?.results).toHaveLength(3);
    const first = run?.results[0];
    expect(first?.partialFingerprints['rloopFingerprint/v1']).toBe(letter.findings[0]?.fingerprint);
    expect(first?.partialFingerprints['primaryLocationLineHash']).toBe(`${letter.findings[0]?.location_hash}:1`);
    expect(run?.tool.driver.rules[first?.ruleIndex ?? -1]?.id).toBe(first?.ruleId);
    expect(JSON.stringify(sarif)).toContain('quality/code-reviewer did not report: not configured');
  });
});
