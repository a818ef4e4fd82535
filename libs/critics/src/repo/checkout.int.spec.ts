import { afterEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  CheckoutBoundary,
  DEFAULT_MAX_FILE_BYTES,
  RepoReader,
  listCheckoutFiles,
  listDirectoryFiles,
} from '../index.js';

// The files a critic sees are listed from the checkout itself, whatever directory holds it, and
// read only where they really are inside it. The layouts here are the README's: the fleet's home
// under `.rloop/` in the project's own git tree, which ignores it.

const SECRET_MARKER = 'root-secret-marker-4711';
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rloop-checkout-'));
  dirs.push(dir);
  return dir;
}

function write(root: string, files: Readonly<Record<string, string>>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
}

function git(dir: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], {
    cwd: dir,
    stdio: 'ignore',
  });
}

/** A project in git that ignores `.rloop/`, like the README's, and a checkout of a commit under its home. */
function projectWithHome(): { project: string; checkout: string; outside: string } {
  const project = tempDir();
  write(project, { '.gitignore': '.rloop/\n', 'README.md': '# project\n' });
  git(project, 'init', '-q', '-b', 'main');
  git(project, 'add', '-A');
  git(project, 'commit', '-q', '-m', 'project');
  const checkout = join(project, '.rloop/critic-runner/checkouts/0123456789abcdef0123456789abcdef01234567');
  write(checkout, {
    'src/server.js':
      "import { exec } from 'node:child_process';\nexport const list = (req) => exec('ls ' + req.query.dir);\n",
    // Tracked in the commit although the project's own rules would call them build output or junk.
    'vendor/lib.js': 'export const v = 1;\n',
    'dist/keep.js': 'export const d = 1;\n',
    'tmp/fixture.txt': 'data\n',
    '.gitignore': 'tmp/\n',
    'node_modules/dep/index.js': 'module.exports = 1;\n',
  });
  const outside = tempDir();
  write(outside, { passwd: `${SECRET_MARKER}:x:0:0:root:/root:/bin/bash\n` });
  return { project, checkout, outside };
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('listing a checkout of a commit', () => {
  it('lists every file of a checkout under a home the enclosing repository ignores (not "no files")', async () => {
    const { checkout } = projectWithHome();
    expect(await listCheckoutFiles(checkout)).toEqual([
      '.gitignore',
      'dist/keep.js',
      'src/server.js',
      'tmp/fixture.txt',
      'vendor/lib.js',
    ]);
  });

  it('lists the checkout itself when the enclosing repository does not ignore it either', async () => {
    const { project, checkout } = projectWithHome();
    writeFileSync(join(project, '.gitignore'), '*.js\n');
    expect(await listCheckoutFiles(checkout)).toEqual([
      '.gitignore',
      'dist/keep.js',
      'src/server.js',
      'tmp/fixture.txt',
      'vendor/lib.js',
    ]);
  });

  it('lists symbolic links as files without following them', async () => {
    const { checkout, outside } = projectWithHome();
    symlinkSync(join(outside, 'passwd'), join(checkout, 'src/passwd.js'));
    symlinkSync(outside, join(checkout, 'linked-dir'));
    const files = await listCheckoutFiles(checkout);
    expect(files).toContain('src/passwd.js');
    expect(files).toContain('linked-dir');
    expect(files.some((f) => f.startsWith('linked-dir/'))).toBe(false);
  });

  it('lists a clone with its own git data through git', async () => {
    const clone = tempDir();
    write(clone, { 'a.js': '1\n', 'ignored.log': 'x\n', '.gitignore': '*.log\n' });
    git(clone, 'init', '-q', '-b', 'main');
    git(clone, 'add', '.gitignore', 'a.js');
    git(clone, 'commit', '-q', '-m', 'c');
    expect(await listCheckoutFiles(clone)).toEqual(['.gitignore', 'a.js']);
  });
});

describe('listing a directory for rloop review', () => {
  it('reviews a sub-directory of a repository as its repository sees it, relative to the sub-directory', async () => {
    const project = tempDir();
    write(project, {
      '.gitignore': 'build/\n',
      'pkg/src/a.ts': 'export {};\n',
      'pkg/build/out.js': 'x\n',
      'other/b.ts': 'export {};\n',
    });
    git(project, 'init', '-q', '-b', 'main');
    git(project, 'add', '-A');
    git(project, 'commit', '-q', '-m', 'p');
    expect(await listDirectoryFiles(join(project, 'pkg'))).toEqual({ files: ['src/a.ts'], source: 'git' });
  });

  it('reviews a sub-directory the repository ignores as its own tree', async () => {
    const { project } = projectWithHome();
    const sample = join(project, '.rloop/samples/app');
    write(sample, { 'src/app.ts': 'export {};\n', 'dist/app.js': 'x\n' });
    expect(await listDirectoryFiles(sample)).toEqual({ files: ['src/app.ts'], source: 'walk' });
  });
});

describe('reading inside the checkout', () => {
  it('never reads through a symbolic link that leaves the checkout, and says why', () => {
    const { checkout, outside } = projectWithHome();
    symlinkSync(join(outside, 'passwd'), join(checkout, 'src/passwd.js'));
    symlinkSync(outside, join(checkout, 'src/up'));
    symlinkSync('server.js', join(checkout, 'src/alias.js'));
    const reader = new RepoReader(checkout);
    expect(reader.read('src/passwd.js')).toBeNull();
    expect(reader.outcome('src/passwd.js')).toEqual({
      ok: false,
      reason: 'outside_checkout',
      detail: expect.stringContaining('outside the checkout'),
    });
    expect(reader.hash('src/up/passwd')).toBeNull();
    expect(reader.outcome('src/up/passwd')).toMatchObject({ ok: false, reason: 'outside_checkout' });
    expect(reader.read('../' + 'x')).toBeNull();
    expect(reader.read('src/alias.js')).toContain('exec(');
    expect(reader.outcome('src/alias.js')).toEqual({ ok: true });
  });

  it('skips files past the size bound (too_large), binary files and missing ones, each with its reason', () => {
    const { checkout } = projectWithHome();
    write(checkout, { 'src/big.js': `// ${'x'.repeat(DEFAULT_MAX_FILE_BYTES)}\n`, 'src/bin.js': 'a\u0000b' });
    const reader = new RepoReader(checkout);
    expect(reader.read('src/big.js')).toBeNull();
    expect(reader.outcome('src/big.js')).toEqual({
      ok: false,
      reason: 'too_large',
      detail: `${DEFAULT_MAX_FILE_BYTES + 4} bytes, over the ${DEFAULT_MAX_FILE_BYTES}-byte bound`,
    });
    expect(reader.read('src/bin.js')).toBeNull();
    expect(reader.outcome('src/bin.js')).toMatchObject({ ok: false, reason: 'binary' });
    expect(reader.read('src/gone.js')).toBeNull();
    expect(reader.outcome('src/gone.js')).toMatchObject({ ok: false, reason: 'missing' });
    expect(reader.outcome('src/never-asked.js')).toBeUndefined();
    // An operator's bound, and a file a tool reads whole anyway (a lockfile), are read past it.
    expect(new RepoReader(checkout, { maxFileBytes: 2 * DEFAULT_MAX_FILE_BYTES }).read('src/big.js')).toHaveLength(
      DEFAULT_MAX_FILE_BYTES + 4,
    );
    expect(new RepoReader(checkout).readWhole('src/big.js')).toHaveLength(DEFAULT_MAX_FILE_BYTES + 4);
  });

  it('lets a tool read its own libraries and installed packages, never a checkout path that leads out', () => {
    const { checkout, outside } = projectWithHome();
    symlinkSync(join(outside, 'passwd'), join(checkout, 'src/passwd.ts'));
    const boundary = new CheckoutBoundary(checkout);
    expect(boundary.allows(join(checkout, 'src/passwd.ts'))).toBe(false);
    expect(boundary.allows(join(checkout, 'src/server.js'))).toBe(true);
    expect(boundary.allows(join(checkout, 'src/not-there.ts'))).toBe(true);
    expect(boundary.allows(join(checkout, 'node_modules/dep/index.js'))).toBe(true);
    expect(boundary.allows('/usr/lib/node_modules/typescript/lib/lib.d.ts')).toBe(true);
  });
});
