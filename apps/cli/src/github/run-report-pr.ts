import { readFileSync } from 'node:fs';
import { Letter, RloopError } from '@rloop/contracts';
import { maskSecretsDeep } from '@rloop/domain';
import type { ReportPrOptions } from '../commands/report-pr.js';
import { CliError } from '../program.js';
import { type ReviewEnvironment, reviewEnvironment } from '../review/environment.js';
import { cliVersion } from '../version.js';
import { GitHubApiError, GitHubClient } from './client.js';
import { type PrTarget, reportOnPullRequest } from './pr-report.js';

function readLetter(path: string): Letter {
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`, 2);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CliError(`${path} is not JSON: write it with rloop review --format json --output ${path}`, 2);
  }
  const parsed = Letter.safeParse(json);
  if (!parsed.success)
    throw new CliError(
      `${path} is not a review written by rloop review --format json (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? 'invalid'})`,
      2,
    );
  return parsed.data;
}

function pullFromEvent(env: ReviewEnvironment): number | null {
  if (env.githubEventPath === null) return null;
  try {
    const event = JSON.parse(readFileSync(env.githubEventPath, 'utf8')) as {
      pull_request?: { number?: unknown };
      number?: unknown;
    };
    const n = event.pull_request?.number ?? event.number;
    return typeof n === 'number' && Number.isInteger(n) ? n : null;
  } catch {
    // Not a pull request event (a push): the caller says --pr is needed.
    return null;
  }
}

function targetOf(options: ReportPrOptions, env: ReviewEnvironment): PrTarget {
  const repo = options.repo ?? env.githubRepository;
  if (repo === null || !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo))
    throw new CliError(
      repo === null
        ? 'no repository: pass --repo owner/name (or run in GitHub Actions, which sets GITHUB_REPOSITORY)'
        : `--repo ${repo} is not owner/name`,
      2,
    );
  const pull = options.pr === undefined ? pullFromEvent(env) : Number(options.pr);
  if (pull === null)
    throw new CliError(
      'no pull request: pass --pr <number> (or run on a pull_request event, whose payload names it)',
      2,
    );
  if (!Number.isInteger(pull) || pull < 1)
    throw new CliError(`--pr ${options.pr ?? ''} is not a pull request number`, 2);
  const [owner = '', name = ''] = repo.split('/');
  return { owner, repo: name, pull };
}

/** Runs `rloop report-pr`. */
export async function runReportPr(path: string, options: ReportPrOptions): Promise<void> {
  let env: ReviewEnvironment;
  try {
    env = reviewEnvironment(process.env);
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
  // What is posted on a pull request is public to everyone who can read it: secrets masked.
  const letter = maskSecretsDeep(readLetter(path));
  const target = targetOf(options, env);
  if (env.githubToken === null)
    throw new CliError('no GitHub token: set GITHUB_TOKEN (in a workflow: env: GITHUB_TOKEN: ${{ github.token }})', 2);
  const version = cliVersion();
  const client = new GitHubClient({
    apiUrl: options.apiUrl ?? env.githubApiUrl,
    token: env.githubToken,
    userAgent: `rloop/${version}`,
  });
  try {
    const result = await reportOnPullRequest(client, target, letter, {
      failOn: options.failOn,
      maxComments: Number(options.maxComments),
      version,
    });
    process.stderr.write(
      `report-pr: ${target.owner}/${target.repo}#${target.pull}: ${result.created} comment(s) posted, ${result.updated} updated, ${result.removed} replaced; summary ${result.summary}` +
        `${result.outsideDiff > 0 ? `; ${result.outsideDiff} finding(s) not on a changed line are listed in the summary` : ''}\n`,
    );
  } catch (error) {
    if (error instanceof GitHubApiError || error instanceof RloopError) throw new CliError(error.message, 1);
    throw error;
  }
}
