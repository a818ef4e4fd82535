import { describe, expect, it } from '@jest/globals';
import { excludeFiles, selectByGlobs } from '../index.js';

const FILES = ['src/a.js', 'src/legacy.js', 'src/a.test.js', 'vendor/lib.js', 'docs/x.md', 'src/gen/big.js'];

describe('selectByGlobs (--files)', () => {
  it('takes files back out with !glob instead of adding more', () => {
    expect(selectByGlobs(FILES, ['src/**'])).toEqual(['src/a.js', 'src/legacy.js', 'src/a.test.js', 'src/gen/big.js']);
    expect(selectByGlobs(FILES, ['src/**', '!src/legacy.js'])).toEqual(['src/a.js', 'src/a.test.js', 'src/gen/big.js']);
  });

  it('with only negated globs, starts from every file', () => {
    expect(selectByGlobs(FILES, ['!**/*.test.js', '!vendor/**'])).toEqual([
      'src/a.js',
      'src/legacy.js',
      'docs/x.md',
      'src/gen/big.js',
    ]);
  });

  it('keeps every file without globs', () => {
    expect(selectByGlobs(FILES, [])).toEqual(FILES);
  });
});

describe('excludeFiles', () => {
  it('says why each file is left out: a glob (the last match wins, !glob takes it back), .rloopignore, the size bound', () => {
    const sizes: Record<string, number> = { 'src/gen/big.js': 5_000 };
    const { kept, excluded } = excludeFiles(FILES, {
      globs: [
        { globs: ['--exclude-me'], source: '--exclude' },
        { globs: ['vendor/**', 'src/**/*.test.js', '!src/a.test.js'], source: '.rloop.yaml exclude' },
      ],
      ignoreText: '# generated\ndocs/\n',
      maxFileBytes: 1_000,
      maxFileBytesSource: '.rloop.yaml max_file_bytes',
      sizeOf: (file) => sizes[file] ?? 10,
    });
    expect(kept).toEqual(['src/a.js', 'src/legacy.js', 'src/a.test.js']);
    expect(excluded).toEqual([
      { file: 'vendor/lib.js', by: '.rloop.yaml exclude vendor/**' },
      { file: 'docs/x.md', by: '.rloopignore' },
      { file: 'src/gen/big.js', by: '.rloop.yaml max_file_bytes (5000 > 1000 bytes)' },
    ]);
  });

  it('reads .rloopignore with gitignore semantics (a bare name matches at any depth, ! re-includes)', () => {
    const { kept } = excludeFiles(['a/node_cache/x.js', 'node_cache/y.js', 'keep/node_cache/z.js', 'b.js'], {
      ignoreText: 'node_cache/\n!keep/node_cache/\n',
    });
    expect(kept).toEqual(['keep/node_cache/z.js', 'b.js']);
    const { kept: logs } = excludeFiles(['app.log', 'src/debug.log', 'important.log', 'a.js'], {
      ignoreText: '*.log\n!important.log\n',
    });
    expect(logs).toEqual(['important.log', 'a.js']);
  });
});
