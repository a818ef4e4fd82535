import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCriticRunnerConfig } from './config.js';

// The operator's repo-policy.yaml is checked against config/critics.yaml at start: a repository
// may never be allowed to switch off a critic that is core in some round.

const SHIPPED_CONFIG = fileURLToPath(new URL('../../../config', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rloop-critic-runner-config-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function configWithCriticsOff(name: string, ids: readonly string[]): string {
  const configDir = join(dir, name);
  cpSync(SHIPPED_CONFIG, configDir, { recursive: true });
  writeFileSync(join(configDir, 'repo-policy.yaml'), `critics_off: [${ids.join(', ')}]\n`);
  return configDir;
}

describe('critic-runner configuration', () => {
  it('starts with the shipped files, and a policy letting repositories switch a non-core critic off', async () => {
    const config = await loadCriticRunnerConfig({
      RLOOP_HOME: join(dir, 'home'),
      RLOOP_CONFIG_DIR: configWithCriticsOff('non-core', ['quality/complexity']),
    });
    expect(config.repoPolicy.critics_off).toEqual(['quality/complexity']);
  });

  it('refuses a policy letting repositories switch off a core critic, or one a dynamic trigger makes core (a language toolchain)', async () => {
    await expect(
      loadCriticRunnerConfig({
        RLOOP_HOME: join(dir, 'home'),
        RLOOP_CONFIG_DIR: configWithCriticsOff('core', ['security/sast-scanner']),
      }),
    ).rejects.toThrow(/critics_off names core critic\(s\) security\/sast-scanner/);
    await expect(
      loadCriticRunnerConfig({
        RLOOP_HOME: join(dir, 'home'),
        RLOOP_CONFIG_DIR: configWithCriticsOff('dynamic-core', ['toolchain/python', 'quality/complexity']),
      }),
    ).rejects.toThrow(/critics_off names core critic\(s\) toolchain\/python;/);
  });
});
