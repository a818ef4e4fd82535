import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the parts of the GitHub REST API that `rloop report-pr` uses, behaving
 * like GitHub where our code could get it wrong: bearer-token authentication (401 "Bad
 * credentials"), a User-Agent required (403), 404 "Not Found" for a repository or pull request
 * the token cannot see, pagination by `per_page` (default 30, at most 100) and `page` with a Link
 * header, 422 "Validation Failed" for a review comment on a line outside the diff or on a commit
 * that is not the pull request's head, and (scripted) rate limits with `retry-after`.
 *
 * Endpoints: GET /repos/{o}/{r}/pulls/{n}, GET …/pulls/{n}/files, GET|POST …/pulls/{n}/comments,
 * PATCH|DELETE …/pulls/comments/{id}, GET|POST …/issues/{n}/comments, PATCH …/issues/comments/{id}.
 */

export interface FakePullFile {
  readonly filename: string;
  readonly status: 'added' | 'modified' | 'removed' | 'renamed';
  /** The unified diff of the file (absent for binary or very large files, as on GitHub). */
  readonly patch?: string;
}

export interface FakePull {
  readonly headSha: string;
  readonly files: readonly FakePullFile[];
}

export interface FakeReviewComment {
  readonly id: number;
  body: string;
  readonly path: string;
  readonly line: number;
  readonly start_line: number | null;
  readonly side: string;
  readonly commit_id: string;
  readonly user: { readonly login: string };
}

export interface FakeIssueComment {
  readonly id: number;
  body: string;
  readonly user: { readonly login: string };
}

export interface FakeGitHubOptions {
  /** The one token accepted. */
  readonly token: string;
  /** Pull requests by `owner/repo#number`. */
  readonly pulls: Readonly<Record<string, FakePull>>;
  /** Answers the n-th request (1-based) with a secondary rate limit and this retry-after. */
  readonly rateLimitRequests?: Readonly<Record<number, number>>;
  /** The login the token belongs to (the author of what it posts). */
  readonly login?: string;
}

export interface FakeGitHubRequest {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: unknown;
}

export interface FakeGitHub {
  readonly url: string;
  readonly requests: readonly FakeGitHubRequest[];
  reviewComments(key: string): readonly FakeReviewComment[];
  issueComments(key: string): readonly FakeIssueComment[];
  /** Adds a comment as someone else (e.g. a person) would have written it. */
  addIssueComment(key: string, body: string, login: string): void;
  addReviewComment(key: string, comment: Omit<FakeReviewComment, 'id'>): void;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly payload: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(String(payload['message']));
  }
}

const DOCS = 'https://docs.github.com/rest';

function notFound(): HttpError {
  return new HttpError(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
}

function validationFailed(resource: string, field: string, message: string): HttpError {
  return new HttpError(422, {
    message: 'Validation Failed',
    errors: [{ resource, code: 'custom', field, message }],
    documentation_url: DOCS,
    status: '422',
  });
}

/** New-side line ranges of a patch's hunks (every line shown in a hunk can carry a comment). */
function hunkRanges(patch: string): [number, number][] {
  const ranges: [number, number][] = [];
  for (const match of patch.matchAll(/^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm)) {
    const start = Number(match[1]);
    const count = match[2] === undefined ? 1 : Number(match[2]);
    if (count > 0) ranges.push([start, start + count - 1]);
  }
  return ranges;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, { message: 'Problems parsing JSON', documentation_url: DOCS, status: '400' });
  }
}

/** Starts the fake on 127.0.0.1 and a free port. Close it in afterAll. */
export async function startFakeGitHub(options: FakeGitHubOptions): Promise<FakeGitHub> {
  const login = options.login ?? 'github-actions[bot]';
  const requests: FakeGitHubRequest[] = [];
  const reviewComments = new Map<string, FakeReviewComment[]>();
  const issueComments = new Map<string, FakeIssueComment[]>();
  let nextId = 1000;
  let origin = '';

  const page = <T>(url: URL, items: readonly T[]): { items: T[]; link: string | null } => {
    const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? '30') || 30));
    const current = Math.max(1, Number(url.searchParams.get('page') ?? '1') || 1);
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const at = (n: number): string => {
      const next = new URL(url.toString());
      next.searchParams.set('per_page', String(perPage));
      next.searchParams.set('page', String(n));
      return `${origin}${next.pathname}${next.search}`;
    };
    const links = [
      ...(current < last ? [`<${at(current + 1)}>; rel="next"`, `<${at(last)}>; rel="last"`] : []),
      ...(current > 1 ? [`<${at(1)}>; rel="first"`, `<${at(current - 1)}>; rel="prev"`] : []),
    ];
    return {
      items: items.slice((current - 1) * perPage, current * perPage),
      link: links.length === 0 ? null : links.join(', '),
    };
  };

  const findReviewComment = (id: number): { key: string; comment: FakeReviewComment } => {
    for (const [key, list] of reviewComments) {
      const comment = list.find((c) => c.id === id);
      if (comment !== undefined) return { key, comment };
    }
    throw notFound();
  };

  const route = (
    method: string,
    url: URL,
    body: unknown,
  ): { status: number; payload: unknown; link?: string | null } => {
    const m = /^\/repos\/([^/]+)\/([^/]+)\/(pulls|issues)\/(comments\/)?(\d+)(?:\/(files|comments))?$/.exec(
      url.pathname,
    );
    if (m === null) throw notFound();
    const [, owner, repo, kind, commentsPrefix, number, sub] = m;
    if (commentsPrefix !== undefined) {
      // PATCH|DELETE /repos/{o}/{r}/pulls/comments/{id}, PATCH /repos/{o}/{r}/issues/comments/{id}
      const id = Number(number);
      if (kind === 'pulls') {
        const { key, comment } = findReviewComment(id);
        if (!key.startsWith(`${owner}/${repo}#`)) throw notFound();
        if (comment.user.login !== login)
          throw new HttpError(403, {
            message: 'Resource not accessible by integration',
            documentation_url: DOCS,
            status: '403',
          });
        if (method === 'DELETE') {
          reviewComments.set(
            key,
            (reviewComments.get(key) ?? []).filter((c) => c.id !== id),
          );
          return { status: 204, payload: null };
        }
        if (method !== 'PATCH') throw notFound();
        const text = (body as { body?: unknown } | null)?.body;
        if (typeof text !== 'string' || text === '')
          throw validationFailed('PullRequestReviewComment', 'body', 'body is missing');
        comment.body = text;
        return { status: 200, payload: comment };
      }
      const entry = [...issueComments].find(([, list]) => list.some((c) => c.id === id));
      const comment = entry?.[1].find((c) => c.id === id);
      if (
        entry === undefined ||
        comment === undefined ||
        !entry[0].startsWith(`${owner}/${repo}#`) ||
        method !== 'PATCH'
      )
        throw notFound();
      if (comment.user.login !== login)
        throw new HttpError(403, {
          message: 'Resource not accessible by integration',
          documentation_url: DOCS,
          status: '403',
        });
      const text = (body as { body?: unknown } | null)?.body;
      if (typeof text !== 'string' || text === '') throw validationFailed('IssueComment', 'body', 'body is missing');
      comment.body = text;
      return { status: 200, payload: comment };
    }
    const key = `${owner}/${repo}#${number}`;
    const pull = options.pulls[key];
    if (pull === undefined) throw notFound();
    if (kind === 'pulls' && sub === undefined && method === 'GET')
      return { status: 200, payload: { number: Number(number), state: 'open', head: { sha: pull.headSha } } };
    if (kind === 'pulls' && sub === 'files' && method === 'GET') {
      const { items, link } = page(url, pull.files);
      return { status: 200, payload: items, link };
    }
    if (kind === 'pulls' && sub === 'comments') {
      const list = reviewComments.get(key) ?? [];
      if (method === 'GET') {
        const { items, link } = page(url, list);
        return { status: 200, payload: items, link };
      }
      if (method !== 'POST') throw notFound();
      const input = (body ?? {}) as {
        body?: unknown;
        commit_id?: unknown;
        path?: unknown;
        line?: unknown;
        side?: unknown;
        start_line?: unknown;
        start_side?: unknown;
      };
      if (typeof input.body !== 'string' || input.body === '')
        throw validationFailed('PullRequestReviewComment', 'body', 'body is missing');
      if (input.commit_id !== pull.headSha)
        throw validationFailed(
          'PullRequestReviewComment',
          'pull_request_review_thread.end_commit_oid',
          'pull_request_review_thread.end_commit_oid is not part of the pull request',
        );
      const file = pull.files.find((f) => f.filename === input.path);
      if (file === undefined)
        throw validationFailed(
          'PullRequestReviewComment',
          'pull_request_review_thread.path',
          'pull_request_review_thread.path could not be resolved',
        );
      const ranges = hunkRanges(file.patch ?? '');
      const line = Number(input.line);
      const startLine = input.start_line === undefined ? null : Number(input.start_line);
      const hunk = ranges.find(([a, b]) => line >= a && line <= b);
      if ((input.side ?? 'RIGHT') !== 'RIGHT' || !Number.isInteger(line) || hunk === undefined)
        throw validationFailed(
          'PullRequestReviewComment',
          'pull_request_review_thread.line',
          'pull_request_review_thread.line must be part of the diff',
        );
      if (startLine !== null && (!(startLine < line) || startLine < hunk[0]))
        throw validationFailed(
          'PullRequestReviewComment',
          'pull_request_review_thread.start_line',
          'pull_request_review_thread.start_line must be part of the same hunk as the line.',
        );
      nextId += 1;
      const comment: FakeReviewComment = {
        id: nextId,
        body: input.body,
        path: file.filename,
        line,
        start_line: startLine,
        side: 'RIGHT',
        commit_id: pull.headSha,
        user: { login },
      };
      reviewComments.set(key, [...list, comment]);
      return { status: 201, payload: comment };
    }
    if (kind === 'issues' && sub === 'comments') {
      const list = issueComments.get(key) ?? [];
      if (method === 'GET') {
        const { items, link } = page(url, list);
        return { status: 200, payload: items, link };
      }
      if (method !== 'POST') throw notFound();
      const text = (body as { body?: unknown } | null)?.body;
      if (typeof text !== 'string' || text === '') throw validationFailed('IssueComment', 'body', 'body is missing');
      nextId += 1;
      const comment: FakeIssueComment = { id: nextId, body: text, user: { login } };
      issueComments.set(key, [...list, comment]);
      return { status: 201, payload: comment };
    }
    throw notFound();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', origin);
    let parsedBody: unknown = null;
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}): void => {
      requests.push({ method: req.method ?? 'GET', path: `${url.pathname}${url.search}`, status, body: parsedBody });
      res.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '4999',
        ...headers,
      });
      res.end(status === 204 || payload === null ? '' : JSON.stringify(payload));
    };
    try {
      parsedBody = await readJson(req);
      const n = requests.length + 1;
      if ((req.headers['user-agent'] ?? '') === '')
        throw new HttpError(403, {
          message:
            'Request forbidden by administrative rules. Please make sure your request has a User-Agent header (https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required).',
        });
      const auth = /^(?:Bearer|token)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      if (auth !== options.token)
        throw new HttpError(401, { message: 'Bad credentials', documentation_url: DOCS, status: '401' });
      const retryAfter = options.rateLimitRequests?.[n];
      if (retryAfter !== undefined) {
        throw new HttpError(
          403,
          {
            message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
            documentation_url: DOCS,
            status: '403',
          },
          { 'retry-after': String(retryAfter) },
        );
      }
      const result = route(req.method ?? 'GET', url, parsedBody);
      send(
        result.status,
        result.payload,
        result.link === undefined || result.link === null ? {} : { link: result.link },
      );
    } catch (error) {
      if (error instanceof HttpError) send(error.status, error.payload, error.headers);
      else send(500, { message: error instanceof Error ? error.message : 'internal error' });
    }
  };

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    requests,
    reviewComments: (key) => reviewComments.get(key) ?? [],
    issueComments: (key) => issueComments.get(key) ?? [],
    addIssueComment: (key, body, author) => {
      nextId += 1;
      issueComments.set(key, [...(issueComments.get(key) ?? []), { id: nextId, body, user: { login: author } }]);
    },
    addReviewComment: (key, comment) => {
      nextId += 1;
      reviewComments.set(key, [...(reviewComments.get(key) ?? []), { ...comment, id: nextId }]);
    },
    close: () =>
      new Promise<void>((resolve, reject) =>
        server.close((error) => (error === undefined ? resolve() : reject(error))),
      ),
  };
}
