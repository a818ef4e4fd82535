import { describe, expect, it } from '@jest/globals';
import { Letter } from '@rloop/contracts';
import { renderLetterMarkdown } from '../index.js';

const awsKey = ['AKIA', 'Z3MSJV4WUMNRXQ7B'].join('');

describe("the letter's Markdown: what the repository dismissed and what its configuration did", () => {
  it('given a suppression reason and a refused key written by the repository (a newline opening a heading, a pipe, an escape, a key), when rendered, then both sections keep their shape and print no key', () => {
    const letter = Letter.parse({
      letter_id: 'd_0123456789abcdef0123456789abcdef',
      plan: 'shop',
      run_id: 'd_0123456789abcdef0123456789abcdee',
      round: 1,
      phase: 'final_sweep',
      k: null,
      commit: 'a'.repeat(40),
      mode: 'single_pass',
      created_at: '2026-11-30T00:00:00.000Z',
      critics: [{ critic_id: 'security/sast-scanner', core: true, outcome: 'reported', findings_total: 0, findings_kept: 0 }],
      findings: [],
      counts: { critical: 0, medium: 0, low: 0 },
      complete: true,
      disagreements: [],
      suppressed: [
        {
          fingerprint: 'eeeeeeeeeeee',
          finding_type: 'sast/code-injection',
          raised_by: 'security/sast-scanner',
          severity: 'critical',
          file: 'src/evil\n# Injected.js',
          line: 9,
          title: 'eval',
          kind: 'inline',
          reason: `ours\n# Fake section | x \u001b[2J ${awsKey}`,
          source: 'src/evil.js:8',
          until: '2027-03-31',
        },
      ],
      repo_config: { config: '.rloop.yaml', excluded_files: 2, overrides: ['eslint/prefer-const → low (1 finding)'], refused: [`critics.security/sast-scanner: off\n## the policy says no ${awsKey}`] },
      summary: 'x',
    });
    const markdown = renderLetterMarkdown(letter);
    expect(markdown).not.toContain(awsKey);
    expect(markdown).not.toContain('\u001b');
    expect(markdown.split('\n').filter((line) => /^#+ /.test(line))).toEqual(['# Letter d_0123456789abcdef0123456789abcdef', '## Critics', '## Findings', '## Dismissed by the repository (not to fix)']);
    expect(markdown).toContain('- `src/evil\\n# Injected.js:9` `sast/code-injection` (critical) — inline (src/evil.js:8): ours # Fake section | x \\x1b[2J [REDACTED] (until 2027-03-31)');
    expect(markdown).toContain('**Repository configuration** (`.rloop.yaml`): 2 file(s) excluded; severity overrides: eslint/prefer-const → low (1 finding); not applied: critics.security/sast-scanner: off ## the policy says no [REDACTED].');
  });
});
