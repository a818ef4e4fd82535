import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@rloop/testing';
import { AdvisoriesDownloadError, updateAdvisories } from '../index.js';
import { type OsvExportFixture, writeOsvExport } from '../__fixtures__/osv-export.js';

// `rloop advisories update` against a local server laid out like osv.dev's bucket
// (`<base>/<ecosystem>/all.zip`): this machine cannot reach osv.dev itself.

let server: Server;
let base: string;
let osv: OsvExportFixture;
let work: string;
const requests: string[] = [];

beforeAll(async () => {
  osv = writeOsvExport();
  const zip = readFileSync(osv.zip);
  work = mkdtempSync(join(tmpdir(), 'rloop-download-'));
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/npm/all.zip') {
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': zip.length });
      res.end(zip);
    } else if (req.url === '/PyPI/all.zip') {
      // A download cut off half-way: the server closes after sending part of the body.
      res.writeHead(200, { 'content-type': 'application/zip' });
      res.end(zip.subarray(0, Math.floor(zip.length / 2)));
    } else {
      res.writeHead(404, 'Not Found');
      res.end('<Error>NoSuchKey</Error>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  osv.remove();
  rmSync(work, { recursive: true, force: true });
});

describe('updateAdvisories', () => {
  it('downloads <ecosystem>/all.zip into the export directory, checked whole before it is kept', async () => {
    const dir = join(work, 'ok');
    const result = await updateAdvisories({ ecosystem: 'npm', dir, baseUrl: `${base}/` });
    expect(result).toMatchObject({
      url: `${base}/npm/all.zip`,
      file: join(dir, 'npm', 'all.zip'),
      records: 6,
      newestModified: '2026-11-25T00:00:00Z',
    });
    expect(readFileSync(result.file)).toEqual(readFileSync(osv.zip));
    expect(readdirSync(join(dir, 'npm'))).toEqual(['all.zip']);
  });

  it('keeps the previous export when the download is damaged or refused, and says why', async () => {
    const dir = join(work, 'kept');
    await updateAdvisories({ ecosystem: 'npm', dir, baseUrl: base });
    const before = readFileSync(join(dir, 'npm', 'all.zip'));
    writeFileSync(join(work, 'marker'), '');
    await expect(updateAdvisories({ ecosystem: 'PyPI', dir, baseUrl: base })).rejects.toThrow(
      /did not give a readable export .*previous export, if any, is kept/,
    );
    expect(existsSync(join(dir, 'PyPI', 'all.zip'))).toBe(false);
    expect(readdirSync(join(dir, 'PyPI'))).toEqual([]);
    await expect(updateAdvisories({ ecosystem: 'Go', dir, baseUrl: base })).rejects.toThrow(
      /answered 404 Not Found \(is Go an ecosystem osv\.dev exports\?\)/,
    );
    expect(readFileSync(join(dir, 'npm', 'all.zip'))).toEqual(before);
  });

  it('fails clearly when the host cannot be reached (this machine and osv.dev), naming the way around it', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const error = await updateAdvisories({ ecosystem: 'npm', dir: join(work, 'offline'), baseUrl: closed }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AdvisoriesDownloadError);
    expect((error as AdvisoriesDownloadError).code).toBe('ADVISORIES.DOWNLOAD_FAILED');
    expect((error as Error).message).toMatch(
      /could not reach http:\/\/127\.0\.0\.1:\d+\/npm\/all\.zip \(.*ECONNREFUSED.*\): .*copy it to .*offline\/npm\/all\.zip, or pass --url with a mirror/,
    );
  });
});
