import { describe, expect, it } from '@jest/globals';
import { describeModelCases } from '../__fixtures__/taint.js';
import { detectLibrary } from './critics.js';

describe('detectLibrary', () => {
  it.each([
    ['{"name":"lib","exports":{".":"./dist/index.js"}}', true, 'package.json declares exports'],
    ['{"name":"lib","types":"dist/index.d.ts"}', true, 'package.json declares types'],
    ['{"name":"lib","main":"index.js"}', true, 'package.json declares main and no start script'],
    ['{"name":"app","main":"index.js","scripts":{"start":"node index.js"}}', false, 'package.json declares no exports'],
    ['{"name":"app","private":true,"exports":"./x.js"}', false, 'package.json is private'],
    ['[1, 2]', false, 'package.json is not an object'],
    ['{ not json', false, 'package.json is not valid JSON'],
  ])('%s → library %s', (text, library, reason) => {
    expect(detectLibrary(text)).toEqual({ library, reason });
  });

  it('says when there is no package.json', () => {
    expect(detectLibrary(null)).toEqual({ library: false, reason: 'no package.json' });
  });
});

describeModelCases("library mode (exported functions' parameters as sources)", [
  {
    name: 'arguments built into a shell command, a path and SQL',
    options: { libraryMode: true },
    vulnerable: {
      'src/index.ts': `import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
export function clone(repo: string, dir: string) {
  execSync('git clone ' + repo + ' ' + dir); // SINK command
}
export const readLocale = (name: string) => readFileSync(join(__dirname, 'locales', name + '.json'), 'utf8'); // SINK path
export class Store {
  constructor(private readonly db: { query(sql: string): unknown }) {}
  find(table: string, id: string) {
    return this.db.query(\`SELECT * FROM \${table} WHERE id = '\${id}'\`); // SINK sql
  }
  private raw(sql: string) {
    return this.db.query('/* raw */ ' + sql);
  }
}
`,
    },
    safe: {
      'src/index.ts': `import { execFileSync, execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
export function clone(repo: string, dir: string) {
  execFileSync('git', ['clone', '--', repo, dir]);
}
/** Runs the command the caller gives: that is what this function is for. */
export function run(command: string) {
  return execSync(command);
}
export const readLocale = (name: string) => readFileSync(join(__dirname, 'locales', basename(name) + '.json'), 'utf8');
export const readConfig = (path: string) => readFileSync(path, 'utf8');
export class Store {
  constructor(private readonly db: { query(sql: string, values: unknown[]): unknown }) {}
  find(table: 'users' | 'orders', id: string) {
    return this.db.query('SELECT * FROM users WHERE id = $1', [id]);
  }
}
`,
    },
  },
  {
    name: 'the same code without library mode',
    vulnerable: {
      'src/index.ts': `import { execSync } from 'node:child_process';
export function clone(repo: string) {
  execSync('git clone ' + repo);
}
`,
    },
  },
]);
