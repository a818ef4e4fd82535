import { describe, expect, it } from '@jest/globals';
import { StuckReport } from '@rloop/contracts';
import { renderStuckReportMarkdown } from '../index.js';

const awsKey = ['AKIA', 'Z3MSJV4WUMNRXQ7B'].join('');

describe('the stuck-issue report as Markdown', () => {
  it('given a file name with a newline and a pipe, a diff holding a code fence and a key, when rendered, then the document keeps its shape and no key is printed', () => {
    const report = StuckReport.parse({
      plan: 'leaky',
      run_id: '01JRUN00000000000000000000',
      phase: 'critical',
      round: 3,
      trigger: { kind: 'soft_cap', detail: `the key ${awsKey} is still there\n# Not a heading` },
      findings: [
        {
          fingerprint: 'a'.repeat(12),
          title: 'Committed secret\n## Fake section',
          file: 'src/evil\n# Injected | x.js',
          line_range: { start: 2, end: 2 },
          severity: 'critical',
          category: 'security',
          raised_by: ['security/secrets-detector'],
          rounds: [{ round: 1, present: true }],
          attempts: [
            {
              round: 1,
              commit: null,
              lines_changed: 2,
              diff: `--- a/x\n+++ b/x\n-const k = '${awsKey}';\n+\`\`\`\n+# escaped the fence?\n`,
            },
          ],
        },
      ],
      recommended_action: 'Fix it by hand.',
    });
    const markdown = renderStuckReportMarkdown(report);
    expect(markdown).not.toContain(awsKey);
    const headings = markdown.split('\n').filter((line) => /^#+ /.test(line));
    expect(headings).toEqual([
      '# Escalation: leaky is stuck',
      '## Open findings (1)',
      '### Committed secret ## Fake section',
    ]);
    expect(markdown).toContain('`src/evil\\n# Injected | x.js:2`');
    expect(markdown).toContain(
      "````diff\n--- a/x\n+++ b/x\n-const k = '[REDACTED]';\n+```\n+# escaped the fence?\n````",
    );
  });
});
