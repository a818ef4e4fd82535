import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeZip } from '@rloop/testing';
import { ZipFile, ZipFormatError } from './zip.js';

function withDir(run: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'rloop-zip-'));
  try {
    run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const readAll = (path: string): string[] => {
  const zip = ZipFile.open(path);
  try {
    return zip.entries.map((entry) => `${entry.name}=${zip.read(entry).toString('utf8')}`);
  } finally {
    zip.close();
  }
};

describe('zip reader', () => {
  it('reads deflated and stored entries', () => {
    withDir((dir) => {
      writeZip(join(dir, 'a.zip'), [
        { name: 'A.json', data: '{"id":"A"}' },
        { name: 'dir/B.json', data: 'x'.repeat(10_000) },
      ]);
      writeZip(join(dir, 'b.zip'), [{ name: 'C.json', data: '{}' }], { store: true });
      expect(readAll(join(dir, 'a.zip'))).toEqual(['A.json={"id":"A"}', `dir/B.json=${'x'.repeat(10_000)}`]);
      expect(readAll(join(dir, 'b.zip'))).toEqual(['C.json={}']);
    });
  });

  it("reads ZIP64 archives with more than 65,535 entries (npm's export has hundreds of thousands)", () => {
    withDir((dir) => {
      const files = Array.from({ length: 70_000 }, (_, i) => ({ name: `R-${i}.json`, data: `${i}` }));
      writeZip(join(dir, 'big.zip'), files, { zip64: true, store: true });
      const zip = ZipFile.open(join(dir, 'big.zip'));
      try {
        expect(zip.entries.length).toBe(70_000);
        const last = zip.entries[69_999];
        expect(last === undefined ? null : zip.read(last).toString('utf8')).toBe('69999');
      } finally {
        zip.close();
      }
    });
  });

  it('refuses a truncated download, a damaged entry and a file that is no zip, with a typed error', () => {
    withDir((dir) => {
      writeZip(join(dir, 'ok.zip'), [{ name: 'A.json', data: 'y'.repeat(5000) }]);
      const bytes = readFileSync(join(dir, 'ok.zip'));
      writeFileSync(join(dir, 'cut.zip'), bytes.subarray(0, bytes.length - 30));
      expect(() => ZipFile.open(join(dir, 'cut.zip'))).toThrow(ZipFormatError);
      const damaged = Buffer.from(bytes);
      damaged[40] = (damaged[40] ?? 0) ^ 0xff;
      writeFileSync(join(dir, 'damaged.zip'), damaged);
      expect(() => readAll(join(dir, 'damaged.zip'))).toThrow(
        /damaged\.zip: A\.json (fails its CRC check|does not inflate)/,
      );
      writeFileSync(join(dir, 'text.zip'), 'not a zip at all');
      expect(() => ZipFile.open(join(dir, 'text.zip'))).toThrow(/not a zip file/);
    });
  });
});
