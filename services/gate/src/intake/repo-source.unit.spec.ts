import { describe, expect, it } from '@jest/globals';
import { displayUrl, hostAllowed, isLocalAddress, parseRepoUrl, urlIssues } from './repo-source.js';

const policy = {
  schemes: ['https', 'ssh'] as const,
  hosts: ['github.com', '*.example.com'],
  localAddresses: false,
  configFile: 'config/trust.yaml',
};

describe('reading repository URLs the way git does', () => {
  it('given each syntax git accepts, when parsed, then scheme and host are what git would use', () => {
    expect(parseRepoUrl('https://github.com/o/r.git')).toMatchObject({
      scheme: 'https',
      host: 'github.com',
      hasUser: false,
    });
    expect(parseRepoUrl('git@github.com:o/r.git')).toMatchObject({
      scheme: 'ssh',
      host: 'github.com',
      hasUser: true,
      hasPassword: false,
    });
    expect(parseRepoUrl('ssh://git@[::1]:22/r')).toMatchObject({ scheme: 'ssh', host: '::1', port: 22 });
    expect(parseRepoUrl('ext::sh -c id')).toMatchObject({ scheme: 'ext', host: null });
    expect(parseRepoUrl('/srv/git/r.git')).toMatchObject({ scheme: 'file', localPath: '/srv/git/r.git' });
    expect(parseRepoUrl('file:///srv/git/r%20x.git')).toMatchObject({ scheme: 'file', localPath: '/srv/git/r x.git' });
  });

  it('given user info, when shown, then it is replaced and control characters are escaped', () => {
    expect(displayUrl('https://ci:tok3n@github.com/o/r.git')).toBe('https://***@github.com/o/r.git');
    expect(displayUrl('https://github.com/o/r\u001b[2J.git')).toBe('https://github.com/o/r\\x1b[2J.git');
  });

  it('given host patterns, when matched, then *.domain covers subdomains only', () => {
    expect(hostAllowed('git.example.com', policy.hosts)).toBe(true);
    expect(hostAllowed('example.com', policy.hosts)).toBe(false);
    expect(hostAllowed('evil-example.com', policy.hosts)).toBe(false);
    expect(hostAllowed('GitHub.com.', policy.hosts)).toBe(true);
  });

  it('given addresses, when classified, then loopback, link-local, unspecified and their IPv4-mapped forms are local', () => {
    expect(
      ['127.0.0.1', '127.8.9.1', '169.254.169.254', '0.0.0.0', '::1', '::', 'fe80::1', '::ffff:127.0.0.1'].every(
        isLocalAddress,
      ),
    ).toBe(true);
    expect(['10.0.0.1', '192.168.1.1', '140.82.112.3', '2606:50c0:8000::153'].some(isLocalAddress)).toBe(false);
  });

  it('given URLs against the policy, when checked, then scheme, credentials, host and literal local addresses are each refused with a reason', () => {
    expect(urlIssues('https://github.com/o/r.git', policy)).toEqual([]);
    expect(urlIssues('http://github.com/o/r.git', policy)[0]?.message).toMatch(
      /the http scheme is not allowed on this fleet \(allowed: https, ssh/,
    );
    expect(urlIssues('https://x-access-token@github.com/o/r.git', policy)[0]?.message).toMatch(
      /must not carry credentials/,
    );
    expect(urlIssues('https://gitlab.com/o/r.git', policy)[0]?.message).toBe(
      'https://gitlab.com/o/r.git: host gitlab.com is not in repositories.url.hosts of config/trust.yaml',
    );
    expect(urlIssues('https://[::1]/r.git', { ...policy, hosts: ['[::1]'] })[0]?.message).toMatch(
      /reaches ::1, a loopback or link-local address/,
    );
  });
});
