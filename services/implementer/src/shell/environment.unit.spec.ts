import { describe, expect, it } from '@jest/globals';
import { commandEnvironment } from './environment.js';

describe("a plan command's environment", () => {
  const service = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/rloop',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    ANTHROPIC_API_KEY: 'sk-ant-api03-secret',
    DATABASE_URL: 'postgres://rloop:pw@db/rloop',
    NATS_URL: 'nats://implementer:pw@nats:4222',
    NATS_CREDS: '/run/secrets/implementer.creds',
    PGPASSWORD: 'pw',
    RLOOP_HOME: '/var/lib/rloop',
    AWS_SECRET_ACCESS_KEY: 'not-listed',
    NODE_OPTIONS: '--max-old-space-size=4096',
    NPM_TOKEN: 'npm_listed_by_the_operator',
  };

  it('given the service environment, when a command environment is built, then only PATH, HOME, the locale and what the operator listed are in it', () => {
    expect(commandEnvironment(service, ['NODE_OPTIONS', 'NPM_TOKEN'])).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/rloop',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      NODE_OPTIONS: '--max-old-space-size=4096',
      NPM_TOKEN: 'npm_listed_by_the_operator',
    });
  });

  it("given the service's own secrets among the operator's names, when built, then they are still left out", () => {
    const env = commandEnvironment(service, [
      'ANTHROPIC_API_KEY',
      'DATABASE_URL',
      'NATS_URL',
      'NATS_CREDS',
      'PGPASSWORD',
      'RLOOP_HOME',
    ]);
    expect(Object.keys(env).sort()).toEqual(['HOME', 'LANG', 'LC_ALL', 'PATH']);
  });

  it('given no PATH, when built, then a standard one is set', () => {
    expect(commandEnvironment({}, [])['PATH']).toContain('/usr/bin');
  });
});
