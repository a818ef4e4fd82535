import { isIP } from 'node:net';
import type { Issue } from '@rloop/contracts';
import { URL_SCHEMES, type UrlScheme, oneLine } from '@rloop/domain';

// Where a plan's repository may come from is the operator's decision (config/trust.yaml
// `repositories`): the pure half of that check. I/O (real paths, DNS, git) is in repository.ts.

/** A plan's `repo.url`, taken apart. */
export interface RepoUrl {
  /** `https`, `ssh`, `file`, … or a transport helper's name (`ext` for `ext::…`). */
  readonly scheme: string;
  /** Lower-cased, brackets removed from IPv6 literals; null for local paths and file URLs without a host. */
  readonly host: string | null;
  readonly port: number | null;
  /** Whether the URL carries user info (`user@`) or a password (`user:password@`). */
  readonly hasUser: boolean;
  readonly hasPassword: boolean;
  /** The local path of a `file://` URL or a bare path. */
  readonly localPath: string | null;
}

/**
 * Reads a repository URL the way git does: `scheme://[user[:password]@]host[:port]/path`,
 * scp-like `user@host:path` (ssh), `transport::address` (a remote helper), or a bare path (file).
 */
export function parseRepoUrl(url: string): RepoUrl | null {
  const helper = /^([A-Za-z][A-Za-z0-9+.-]*)::/.exec(url);
  if (helper !== null)
    return {
      scheme: (helper[1] ?? '').toLowerCase(),
      host: null,
      port: null,
      hasUser: false,
      hasPassword: false,
      localPath: null,
    };
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    const scheme = parsed.protocol.slice(0, -1).toLowerCase();
    const host = parsed.hostname === '' ? null : parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    return {
      scheme: scheme === 'git+ssh' || scheme === 'ssh+git' ? 'ssh' : scheme,
      host,
      port: parsed.port === '' ? null : Number(parsed.port),
      hasUser: parsed.username !== '' || parsed.password !== '',
      hasPassword: parsed.password !== '',
      localPath: scheme === 'file' ? decodeURIComponent(parsed.pathname) : null,
    };
  }
  // scp-like syntax: a colon before any slash (git's own rule), e.g. git@github.com:org/repo.git.
  const scp = /^(?:([^@/]+)@)?(\[[^\]]+\]|[^:/]+):(?!\/\/)/.exec(url);
  if (scp !== null && !/^[A-Za-z]:[\\/]/.test(url)) {
    return {
      scheme: 'ssh',
      host: (scp[2] ?? '').replace(/^\[|\]$/g, '').toLowerCase(),
      port: null,
      hasUser: scp[1] !== undefined,
      hasPassword: (scp[1] ?? '').includes(':'),
      localPath: null,
    };
  }
  return { scheme: 'file', host: null, port: null, hasUser: false, hasPassword: false, localPath: url };
}

/** The URL as it may be shown: user info replaced by `***`, control characters escaped. Never echoes a credential. */
export function displayUrl(url: string): string {
  const withoutUserInfo = url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/@]*@/, '$1***@');
  return oneLine(withoutUserInfo).slice(0, 300);
}

/** Whether a host matches an allowlist entry: equal, or `*.domain` for any subdomain of it. */
export function hostAllowed(host: string, patterns: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return patterns.some((pattern) => {
    const entry = pattern.toLowerCase().replace(/^\[|\]$/g, '');
    return entry.startsWith('*.') ? name.endsWith(entry.slice(1)) && name.length > entry.length - 1 : name === entry;
  });
}

/**
 * Addresses a repository URL must not reach unless the operator allows it: loopback, link-local
 * (169.254.169.254 is the cloud metadata service), unspecified, and IPv4 addresses mapped into
 * IPv6 that are any of those.
 */
export function isLocalAddress(address: string): boolean {
  const kind = isIP(address);
  if (kind === 4) return /^(127\.|169\.254\.|0\.)/.test(address);
  if (kind !== 6) return false;
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped !== null) return isLocalAddress(mapped[1] ?? '');
  return lower === '::1' || lower === '::' || /^fe[89ab][0-9a-f]:/.test(lower);
}

export interface UrlPolicy {
  readonly schemes: readonly UrlScheme[];
  readonly hosts: readonly string[];
  readonly localAddresses: boolean;
  /** Where the policy lives, for the messages. */
  readonly configFile: string;
}

/**
 * What is wrong with a URL before anything is fetched: an unknown or disallowed scheme, user
 * info carrying a credential, a host not on the allowlist, a literal local address. A `file`
 * URL's path is left to the local-root check. Empty when the URL may be tried.
 */
export function urlIssues(url: string, policy: UrlPolicy): Issue[] {
  const shown = displayUrl(url);
  const parsed = parseRepoUrl(url);
  if (parsed === null) return [{ path: 'repo.url', message: `${shown} is not a URL git can fetch` }];
  const known = (URL_SCHEMES as readonly string[]).includes(parsed.scheme);
  if (!known || !policy.schemes.includes(parsed.scheme as UrlScheme)) {
    const allowed = policy.schemes.length === 0 ? 'none' : policy.schemes.join(', ');
    return [
      {
        path: 'repo.url',
        message: `${shown}: the ${parsed.scheme} scheme is not allowed on this fleet (allowed: ${allowed}; repositories.url.schemes in ${policy.configFile})`,
      },
    ];
  }
  if (parsed.hasPassword || (parsed.hasUser && (parsed.scheme === 'https' || parsed.scheme === 'http'))) {
    return [
      {
        path: 'repo.url',
        message: `${shown}: a repository URL must not carry credentials (they would be journaled with the plan); give the gate's host a git credential helper or an SSH key instead`,
      },
    ];
  }
  if (parsed.scheme === 'file') return [];
  const host = parsed.host ?? '';
  if (policy.hosts.length === 0)
    return [
      {
        path: 'repo.url',
        message: `${shown}: this fleet takes no repository by URL (repositories.url.hosts in ${policy.configFile} is empty); give repo.path instead`,
      },
    ];
  if (!hostAllowed(host, policy.hosts))
    return [
      {
        path: 'repo.url',
        message: `${shown}: host ${oneLine(host)} is not in repositories.url.hosts of ${policy.configFile}`,
      },
    ];
  if (!policy.localAddresses && isIP(host) !== 0 && isLocalAddress(host))
    return [localAddressIssue(shown, host, policy.configFile)];
  return [];
}

export function localAddressIssue(shown: string, address: string, configFile: string): Issue {
  return {
    path: 'repo.url',
    message: `${shown} reaches ${address}, a loopback or link-local address; repositories.url.local_addresses in ${configFile} allows that`,
  };
}

/** The one message for a local path outside the allowed roots, whatever is (or is not) there. */
export function outsideRootsIssue(field: 'repo.path' | 'repo.url', path: string, configFile: string): Issue {
  return {
    path: field,
    message: `${oneLine(path).slice(0, 500)} is not in a repository root this fleet allows (repositories.local_roots in ${configFile})`,
  };
}
