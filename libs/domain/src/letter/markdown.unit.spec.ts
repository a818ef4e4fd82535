import { describe, expect, it } from '@jest/globals';
import type { Letter } from '@rloop/contracts';
import { renderLetterMarkdown } from '../index.js';
import { letterFor } from '../testing/builders.test-helpers.js';

const awsKey = ['AKIA', 'Z3MSJV4WUMNRXQ7B'].join('');

describe("the letter's Markdown: what the repository dismissed and what its configuration did", () => {
  it('given a suppression reason and a refused key written by the repository (a newline opening a heading, a pipe, an escape, a key), when rendered, then both sections keep their shape and print no key', () => {
    const letter: Letter = {
      ...letterFor(1, 'final_sweep', []),
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
      repo_config: {
        config: '.rloop.yaml',
        excluded_files: 2,
        overrides: ['eslint/prefer-const → low (1 finding)'],
        refused: [`critics.security/sast-scanner: off\n## the policy says no ${awsKey}`],
      },
    };
    const markdown = renderLetterMarkdown(letter);
    expect(markdown).not.toContain(awsKey);
    expect(markdown).not.toContain('\u001b');
    expect(markdown.split('\n').filter((line) => /^#+ /.test(line))).toEqual([
      '# Letter d_letter00000001',
      '## Critics',
      '## Findings',
      '## Dismissed by the repository (not to fix)',
    ]);
    expect(markdown).toContain(
      '- `src/evil\\n# Injected.js:9` `sast/code-injection` (critical) — inline (src/evil.js:8): ours # Fake section | x \\x1b[2J [REDACTED] (until 2027-03-31)',
    );
    expect(markdown).toContain(
      '**Repository configuration** (`.rloop.yaml`): 2 file(s) excluded; severity overrides: eslint/prefer-const → low (1 finding); not applied: critics.security/sast-scanner: off ## the policy says no [REDACTED].',
    );
  });
});
