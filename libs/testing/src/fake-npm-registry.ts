// A local stand-in for the npm registry's two endpoints `npm audit --package-lock-only` uses: the
// bulk advisory query (POST /-/npm/v1/security/advisories/bulk, a gzipped {name: [versions]} map,
// answered with advisories keyed by package name) and, for the packages it names, the packument
// npm reads to say whether a fix exists. Anything else is a 404, as the registry answers for a
// package it does not know. The public registry refuses the bulk query from this machine (405).
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One advisory as the bulk endpoint returns it. */
export interface BulkAdvisory {
  readonly id: number;
  readonly url: string;
  readonly title: string;
  readonly severity: 'low' | 'moderate' | 'high' | 'critical';
  readonly vulnerable_versions: string;
  readonly cwe: readonly string[];
  readonly cvss: { readonly score: number; readonly vectorString: string | null };
}

export interface FakeNpmRegistry {
  /** The registry URL, for `npm_config_registry`. */
  readonly url: string;
  /** The bulk queries received (package → versions), to show npm really asked. */
  readonly queries: Record<string, string[]>[];
  close(): Promise<void>;
}

/** Serves `advisories` (package → advisories) and, for those packages, packuments listing `versions`. */
export async function startFakeNpmRegistry(
  advisories: Readonly<Record<string, readonly BulkAdvisory[]>>,
  versions: Readonly<Record<string, readonly string[]>>,
): Promise<FakeNpmRegistry> {
  const queries: Record<string, string[]>[] = [];
  let url = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && req.url === '/-/npm/v1/security/advisories/bulk') {
        const raw = Buffer.concat(chunks);
        const query = JSON.parse(
          (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8'),
        ) as Record<string, string[]>;
        queries.push(query);
        res.end(
          JSON.stringify(
            Object.fromEntries(
              Object.keys(query).flatMap((name) => (advisories[name] === undefined ? [] : [[name, advisories[name]]])),
            ),
          ),
        );
        return;
      }
      const name = decodeURIComponent((req.url ?? '/').slice(1));
      const known = versions[name];
      if (req.method === 'GET' && known !== undefined) {
        res.end(
          JSON.stringify({
            name,
            'dist-tags': { latest: known.at(-1) },
            modified: '2026-01-01T00:00:00.000Z',
            versions: Object.fromEntries(
              known.map((v) => [
                v,
                { name, version: v, dist: { tarball: `${url}${name}/-/${name}-${v}.tgz`, shasum: '0'.repeat(40) } },
              ]),
            ),
          }),
        );
        return;
      }
      res.statusCode = 404;
      res.end('{"error":"Not found"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, queries, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
