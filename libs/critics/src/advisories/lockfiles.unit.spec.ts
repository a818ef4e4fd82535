import { describe, expect, it } from '@jest/globals';
import { LockfileFormatError, lockfileEcosystem, readLockfile } from './lockfiles.js';

const versions = (file: string, text: string): string[] =>
  readLockfile(file, text).packages.map(
    (p) => `${p.name}@${p.version}${p.via.length > 0 ? ` via ${p.via.join('+')}` : ''}`,
  );

describe('lockfiles', () => {
  it('package-lock v3: install paths resolved as Node does, aliases by their real name, links and local folders left out', () => {
    const lock = {
      lockfileVersion: 3,
      packages: {
        '': {
          name: 'app',
          dependencies: { mkdirp: '^0.5.1', 'my-qs': 'npm:qs@6.5.0' },
          devDependencies: { jest: '^29' },
        },
        'node_modules/mkdirp': { version: '0.5.1', dependencies: { minimist: '0.0.8' } },
        'node_modules/mkdirp/node_modules/minimist': { version: '0.0.8' },
        'node_modules/minimist': { version: '1.2.8' },
        'node_modules/jest': { version: '29.0.0', dependencies: { minimist: '^1.2.0' } },
        'node_modules/my-qs': { name: 'qs', version: '6.5.0' },
        'node_modules/local': { resolved: 'packages/local', link: true },
        'packages/local': { version: '1.0.0' },
        'node_modules/from-git': {
          version: 'git+https://example.org/x.git#abc',
          resolved: 'git+https://example.org/x.git#abc',
        },
      },
    };
    const text = JSON.stringify(lock, null, 2);
    expect(versions('package-lock.json', text).sort()).toEqual([
      'jest@29.0.0 via jest',
      'minimist@0.0.8 via mkdirp',
      'minimist@1.2.8 via jest',
      'mkdirp@0.5.1 via mkdirp',
      'qs@6.5.0 via my-qs',
    ]);
    const reading = readLockfile('package-lock.json', text);
    expect(reading.unaudited).toEqual(['from-git (git+https://example.org/x.git#abc)']);
    expect(reading.packages.find((p) => p.version === '0.0.8')?.line).toBe(
      text.split('\n').findIndex((l) => l.includes('"node_modules/mkdirp/node_modules/minimist"')) + 1,
    );
  });

  it('package-lock v1: the nested tree, each package under the direct dependency it hangs from', () => {
    const text = JSON.stringify({
      lockfileVersion: 1,
      dependencies: {
        mkdirp: { version: '0.5.1', requires: { minimist: '0.0.8' }, dependencies: { minimist: { version: '0.0.8' } } },
      },
    });
    expect(versions('npm-shrinkwrap.json', text)).toEqual(['mkdirp@0.5.1', 'minimist@0.0.8 via mkdirp']);
  });

  it('yarn.lock classic and berry, scoped names and npm aliases', () => {
    const classic = [
      '# yarn lockfile v1',
      '',
      '"@babel/core@^7.0.0", "@babel/core@^7.1.0":',
      '  version "7.1.2"',
      '  resolved "https://registry.yarnpkg.com/@babel/core/-/core-7.1.2.tgz"',
      '',
      'lodash@^4.17.0:',
      '  version "4.17.20"',
      '',
      'alias@npm:minimist@^1.2.0:',
      '  version "1.2.5"',
      '',
    ].join('\n');
    expect(versions('yarn.lock', classic)).toEqual(['@babel/core@7.1.2', 'lodash@4.17.20', 'minimist@1.2.5']);
    const berry = [
      '__metadata:',
      '  version: 6',
      '',
      '"lodash@npm:^4.17.0":',
      '  version: 4.17.21',
      '  resolution: "lodash@npm:4.17.21"',
      '',
      '"app@workspace:.":',
      '  version: 0.0.0-use.local',
      '  resolution: "app@workspace:."',
      '',
    ].join('\n');
    expect(versions('web/yarn.lock', berry)).toEqual(['lodash@4.17.21']);
  });

  it('pnpm-lock.yaml 5, 6 and 9 keys, peer suffixes dropped, direct dependencies from the importers', () => {
    const v6 = [
      "lockfileVersion: '6.0'",
      'importers:',
      '  .:',
      '    dependencies:',
      '      qs:',
      '        specifier: ^6.0.0',
      '        version: 6.5.0',
      'packages:',
      '  /qs@6.5.0:',
      '    resolution: {integrity: sha512-x}',
      '  /@acme/static@2.3.0(react@18.2.0):',
      '    resolution: {integrity: sha512-y}',
      '',
    ].join('\n');
    expect(versions('pnpm-lock.yaml', v6)).toEqual(['qs@6.5.0 via qs', '@acme/static@2.3.0']);
    const v5 = [
      'lockfileVersion: 5.4',
      'dependencies:',
      '  qs: 6.5.0',
      'packages:',
      '  /qs/6.5.0:',
      '    resolution: {integrity: sha512-x}',
      '  /@acme/static/2.3.0_react@18.2.0:',
      '    resolution: {integrity: sha512-y}',
      '',
    ].join('\n');
    expect(versions('pnpm-lock.yaml', v5)).toEqual(['qs@6.5.0 via qs', '@acme/static@2.3.0']);
    const v9 = ["lockfileVersion: '9.0'", 'packages:', '  qs@6.5.0:', '    resolution: {integrity: sha512-x}', ''].join(
      '\n',
    );
    expect(versions('pnpm-lock.yaml', v9)).toEqual(['qs@6.5.0']);
  });

  it('Cargo.lock: registry crates only (workspace members and git crates are not crates.io releases)', () => {
    const text = [
      'version = 3',
      '',
      '[[package]]',
      'name = "app"',
      'version = "0.1.0"',
      'dependencies = ["smallvec"]',
      '',
      '[[package]]',
      'name = "smallvec"',
      'version = "1.6.0"',
      'source = "registry+https://github.com/rust-lang/crates.io-index"',
      'checksum = "abc"',
      '',
      '[[package]]',
      'name = "forked"',
      'version = "0.2.0"',
      'source = "git+https://example.org/forked#abc"',
      '',
    ].join('\n');
    const reading = readLockfile('Cargo.lock', text);
    expect(reading.packages.map((p) => [p.name, p.version, p.line])).toEqual([['smallvec', '1.6.0', 9]]);
    expect(reading.unaudited).toEqual(['forked (git+https://example.org/forked#abc)']);
  });

  it('go.mod: required modules (direct and indirect), replacements followed, local replacements left out', () => {
    const text = [
      'module example.org/app',
      '',
      'go 1.21',
      '',
      'require (',
      '\tgolang.org/x/net v0.10.0',
      '\tgolang.org/x/text v0.9.0 // indirect',
      '\texample.org/local v1.0.0',
      ')',
      '',
      'require github.com/pkg/errors v0.9.1',
      '',
      'replace example.org/local => ../local',
      'replace golang.org/x/text => golang.org/x/text v0.14.0',
      '',
    ].join('\n');
    const reading = readLockfile('go.mod', text);
    expect(reading.packages.map((p) => `${p.name}@${p.version}:${p.line}${p.via.length > 0 ? ' direct' : ''}`)).toEqual(
      ['golang.org/x/net@v0.10.0:6 direct', 'golang.org/x/text@v0.14.0:7', 'github.com/pkg/errors@v0.9.1:11 direct'],
    );
    expect(reading.unaudited).toEqual(['example.org/local (replaced by a local directory)']);
  });

  it('Python: pinned requirements only, poetry.lock and uv.lock packages, Pipfile.lock pins', () => {
    const requirements = [
      'flask==2.0.1',
      'Flask-Login[extras]==0.6.2 ; python_version >= "3.8" \\',
      '    --hash=sha256:abc',
      'requests>=2',
      '-r other.txt',
      '# comment',
      '',
    ].join('\n');
    const reading = readLockfile('requirements-dev.txt', requirements);
    expect(reading.packages.map((p) => `${p.name}@${p.version}:${p.line}`)).toEqual([
      'flask@2.0.1:1',
      'Flask-Login@0.6.2:2',
    ]);
    expect(reading.unaudited).toEqual(['requests (>=2: not pinned)']);
    const uv = [
      'version = 1',
      '',
      '[[package]]',
      'name = "app"',
      'version = "0.1.0"',
      'source = { editable = "." }',
      '',
      '[[package]]',
      'name = "flask-login"',
      'version = "0.6.2"',
      'source = { registry = "https://pypi.org/simple" }',
      '',
    ].join('\n');
    expect(versions('uv.lock', uv)).toEqual(['flask-login@0.6.2']);
    expect(
      versions(
        'poetry.lock',
        '[[package]]\nname = "django"\nversion = "4.2.1"\n\n[package.extras]\nargon2 = ["argon2-cffi"]\n',
      ),
    ).toEqual(['django@4.2.1']);
    expect(
      versions(
        'Pipfile.lock',
        JSON.stringify({ default: { django: { version: '==4.2.1' } }, develop: { pytest: { version: '*' } } }),
      ),
    ).toEqual(['django@4.2.1 via django']);
  });

  it('knows its lockfiles by name, and says which file is broken', () => {
    expect(
      [
        'a/package-lock.json',
        'Cargo.lock',
        'go.mod',
        'requirements.txt',
        'requirements/base.txt',
        'package.json',
        'go.sum',
      ].map(lockfileEcosystem),
    ).toEqual(['npm', 'crates.io', 'Go', 'PyPI', null, null, null]);
    expect(() => readLockfile('package-lock.json', '{ not json')).toThrow(LockfileFormatError);
    expect(() => readLockfile('pnpm-lock.yaml', 'a: [')).toThrow(/pnpm-lock.yaml: not valid YAML/);
  });
});
