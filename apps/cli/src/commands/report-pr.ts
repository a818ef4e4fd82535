import { type Command, Option } from 'commander';
import { CliError, type CommandRegistrar } from '../program.js';
import { FAIL_ON, type FailOn } from '../format/report.js';

export interface ReportPrOptions {
  readonly repo?: string;
  readonly pr?: string;
  readonly apiUrl?: string;
  readonly failOn: FailOn;
  readonly maxComments: string;
}

/**
 * `rloop report-pr <letter.json>`: posts a review (`rloop review --format json --output …`) on a
 * GitHub pull request. Repository, pull request and token come from the Actions environment
 * (GITHUB_REPOSITORY, GITHUB_EVENT_PATH, GITHUB_TOKEN) or the options.
 */
export const registerReportPr: CommandRegistrar = (program: Command) => {
  program
    .command('report-pr')
    .description(
      "post a review's findings on a GitHub pull request: comments on changed lines and one summary, updated in place",
    )
    .argument('<letter>', 'the review as JSON (rloop review --format json --output rloop.json), or - for stdin')
    .option('--repo <owner/name>', 'the repository (default: $GITHUB_REPOSITORY)')
    .option('--pr <number>', "the pull request (default: the workflow event's pull request, from $GITHUB_EVENT_PATH)")
    .option('--api-url <url>', 'GitHub API origin (default: $GITHUB_API_URL or https://api.github.com)')
    .addOption(
      new Option('--fail-on <tier>', 'the tier the summary counts as failing').choices(FAIL_ON).default('critical'),
    )
    .option('--max-comments <n>', 'at most this many line comments (the rest are listed in the summary)', '30')
    .addHelpText(
      'after',
      '\nThe token comes from GITHUB_TOKEN (or GH_TOKEN) and needs pull-requests: write and issues: write.\nExit codes: 0 posted, 1 GitHub refused or failed, 2 usage error (no token, repository, pull request or letter).',
    )
    .action(async (letter: string, options: ReportPrOptions) => {
      const max = Number(options.maxComments);
      if (!Number.isInteger(max) || max < 0)
        throw new CliError(`--max-comments expects a whole number of 0 or more, got "${options.maxComments}"`, 2);
      const { runReportPr } = await import('../github/run-report-pr.js');
      await runReportPr(letter, options);
    });
};
