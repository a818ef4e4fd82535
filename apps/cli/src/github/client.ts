import { setTimeout as sleep } from 'node:timers/promises';
import { RloopError } from '@rloop/contracts';

/** A GitHub REST call that failed; `status` is the HTTP status (0: no answer). */
export class GitHubApiError extends RloopError {
  constructor(
    readonly status: number,
    message: string,
    options: { readonly cause?: unknown; readonly retryable?: boolean } = {},
  ) {
    super(
      status === 0
        ? 'GITHUB.UNREACHABLE'
        : status === 401
          ? 'GITHUB.UNAUTHORIZED'
          : status === 403 || status === 429
            ? 'GITHUB.FORBIDDEN'
            : status === 404
              ? 'GITHUB.NOT_FOUND'
              : status === 422
                ? 'GITHUB.VALIDATION_FAILED'
                : 'GITHUB.HTTP',
      message,
      options,
    );
  }
}

export interface GitHubClientOptions {
  /** API origin, e.g. https://api.github.com or https://ghe.example.com/api/v3. */
  readonly apiUrl: string;
  readonly token: string;
  readonly userAgent: string;
  /** The longest wait a rate limit may ask for before the call gives up (default 60 s). */
  readonly maxWaitMs?: number;
  readonly wait?: (ms: number) => Promise<void>;
}

interface ErrorBody {
  readonly message?: string;
  readonly errors?: readonly { readonly message?: string; readonly field?: string; readonly code?: string }[];
}

/** The URL of rel="next" in a Link header, or null on the last page. */
export function nextPageUrl(link: string | null): string | null {
  if (link === null) return null;
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part.trim());
    if (match?.[1] !== undefined) return match[1];
  }
  return null;
}

function describe(status: number, body: ErrorBody | null, what: string): string {
  const detail = [
    body?.message,
    ...(body?.errors ?? []).map((e) => e.message ?? [e.field, e.code].filter(Boolean).join(' ')),
  ]
    .filter((t): t is string => t !== undefined && t !== '')
    .join('; ');
  if (status === 401)
    return `GitHub refused the token for ${what} (401${detail === '' ? '' : `: ${detail}`}); check GITHUB_TOKEN`;
  if (status === 404) return `GitHub has no ${what}, or the token may not see it (404)`;
  if (status === 403)
    return `GitHub forbids ${what} (403${detail === '' ? '' : `: ${detail}`}); the token needs pull-requests: write and issues: write`;
  return `GitHub answered ${status} to ${what}${detail === '' ? '' : `: ${detail}`}`;
}

/**
 * A small GitHub REST client: bearer token, the API version header, JSON bodies, pagination by
 * the Link header, and rate limits handled the documented way (wait out `retry-after`, or until
 * `x-ratelimit-reset` when the remaining count is 0, up to a limit; then give up with a clear error).
 */
export class GitHubClient {
  private readonly wait: (ms: number) => Promise<void>;

  constructor(private readonly options: GitHubClientOptions) {
    this.wait = options.wait ?? ((ms) => sleep(ms));
  }

  /** One call; `path` is relative to the API origin (or a full URL from a Link header). */
  async request<T>(method: string, path: string, body?: unknown): Promise<{ data: T; headers: Headers }> {
    const url = path.startsWith('http') ? path : `${this.options.apiUrl.replace(/\/+$/, '')}${path}`;
    const what = `${method} ${new URL(url).pathname}`;
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers: {
            accept: 'application/vnd.github+json',
            authorization: `Bearer ${this.options.token}`,
            'x-github-api-version': '2022-11-28',
            'user-agent': this.options.userAgent,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch (error) {
        throw new GitHubApiError(0, `GitHub did not answer ${what}: ${(error as Error).message}`, {
          cause: error,
          retryable: true,
        });
      }
      if (response.ok) {
        const text = await response.text();
        return { data: (text === '' ? null : JSON.parse(text)) as T, headers: response.headers };
      }
      const errorBody = (await response.json().catch(() => null)) as ErrorBody | null;
      const waitMs = this.rateLimitWait(response);
      if (waitMs !== null && attempt < 3 && waitMs <= (this.options.maxWaitMs ?? 60_000)) {
        await this.wait(waitMs);
        continue;
      }
      if (waitMs !== null)
        throw new GitHubApiError(
          response.status,
          `GitHub rate limit for ${what}: ${errorBody?.message ?? 'rate limited'} (try again in ${Math.ceil(waitMs / 1000)} s)`,
          { retryable: true },
        );
      throw new GitHubApiError(response.status, describe(response.status, errorBody, what));
    }
  }

  /** Every item of a list endpoint, following the Link header's next pages (100 per page). */
  async paginate<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    let next: string | null = `${path}${path.includes('?') ? '&' : '?'}per_page=100`;
    while (next !== null) {
      const { data, headers } = await this.request<T[]>('GET', next);
      items.push(...data);
      next = nextPageUrl(headers.get('link'));
    }
    return items;
  }

  /** How long a rate-limited answer asks us to wait, or null when the answer is not a rate limit. */
  private rateLimitWait(response: Response): number | null {
    if (response.status !== 403 && response.status !== 429) return null;
    const retryAfter = response.headers.get('retry-after');
    if (retryAfter !== null && /^\d+$/.test(retryAfter.trim())) return Number(retryAfter) * 1000;
    if (response.headers.get('x-ratelimit-remaining') === '0') {
      const reset = Number(response.headers.get('x-ratelimit-reset'));
      return Number.isFinite(reset) ? Math.max(0, reset * 1000 - Date.now()) : 60_000;
    }
    return null;
  }
}
