import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PlanSpec } from '@rloop/contracts';
import { admitPlan } from './admit.js';

let root: string;
let repo: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rloop-admit-'));
  repo = join(root, 'repo');
  await mkdir(join(repo, 'src'), { recursive: true });
  await writeFile(join(repo, 'src/index.ts'), 'export const x = 1;\n');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'add', '.']);
  execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init']);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const plan = (strategy: 'anthropic' | 'autofix') =>
  PlanSpec.parse({ slug: 'llm-plan', title: 'A plan', effort_level: 'high', files: ['src/**'], repo: { path: repo, ref: 'main' }, test_cmd: 'node --test', implementer: { strategy } });

describe('admitting a plan that asks for the anthropic implementer', () => {
  it('given no ANTHROPIC_API_KEY on the fleet, when the plan asks for anthropic, then it is rejected with a reason naming the key and the alternatives', async () => {
    const result = await admitPlan(plan('anthropic'), { repoCacheDir: join(root, 'cache'), anthropicConfigured: false });
    expect(result).toEqual({
      ok: false,
      errors: [{ path: 'implementer.strategy', message: 'the anthropic strategy needs ANTHROPIC_API_KEY on this fleet; use autofix or command, or configure a key' }],
    });
  });

  it('given no key, when the plan uses autofix, then it is admitted; given a key, anthropic is admitted too', async () => {
    expect((await admitPlan(plan('autofix'), { repoCacheDir: join(root, 'cache'), anthropicConfigured: false })).ok).toBe(true);
    expect((await admitPlan(plan('anthropic'), { repoCacheDir: join(root, 'cache'), anthropicConfigured: true })).ok).toBe(true);
  });
});
