// `rloop up` as the README runs it: the fleet and the console, each service's /healthz, /readyz and
// /metrics on the ports it prints, and a graceful stop on Ctrl-C.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  TEST_NATS_URL,
  type TestDatabase,
  createTestDatabase,
  deleteNamespaceStreams,
  eventually,
  freePort,
  uniqueNamespace,
} from '@rloop/testing';
import { connectCli } from '../bus/connect.js';

const RLOOP = fileURLToPath(new URL('../../bin/rloop.js', import.meta.url));
const namespace = uniqueNamespace('up');
let home: string;
let database: TestDatabase;
let up: ChildProcessWithoutNullStreams;
const stdout: string[] = [];
let base: number;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'rloop-up-'));
  database = await createTestDatabase('rloop_up');
  base = await freePort();
  up = spawn(process.execPath, [RLOOP, 'up', '--port', String(base), '--quiet'], {
    env: {
      ...process.env,
      NATS_URL: TEST_NATS_URL,
      RLOOP_NAMESPACE: namespace,
      RLOOP_HOME: home,
      DATABASE_URL: database.url,
      RLOOP_CONSOLE_TOKEN: '',
    },
  });
  createInterface({ input: up.stdout }).on('line', (line) => stdout.push(line));
  await eventually(() => stdout.some((l) => l.startsWith('  implementer#1')), {
    timeoutMs: 90_000,
    intervalMs: 100,
    description: '`rloop up` printing the endpoints',
  });
}, 120_000);

afterAll(async () => {
  if (up !== undefined && up.exitCode === null) {
    up.kill('SIGKILL');
  }
  const bus = await connectCli({ natsUrl: TEST_NATS_URL, namespace });
  await deleteNamespaceStreams(await jetstreamManager(bus.connection), namespace);
  await bus.close();
  await database?.drop();
  await rm(home, { recursive: true, force: true });
}, 60_000);

describe('rloop up', () => {
  it('prints the console URL and where each service serves its health and metrics', async () => {
    expect(stdout[0]).toBe('rloop: fleet ready');
    expect(stdout[1]).toMatch(new RegExp(`^console: http://127\\.0\\.0\\.1:${base}/ `));
    const endpoints = stdout
      .slice(2)
      .map((l) => /^ {2}(\S+)#1 +http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(l))
      .map((m) => [m?.[1], Number(m?.[2])]);
    expect(endpoints).toEqual(
      ['journal', 'gate', 'panel', 'critic-runner', 'synthesizer', 'implementer'].map((s, i) => [s, base + 1 + i]),
    );
    // `rloop console` finds the console (and its made-up ops token) there, readable by its owner only.
    const saved = JSON.parse(await readFile(join(home, 'console.json'), 'utf8')) as { url: string; token: string };
    expect(saved.url).toBe(`http://127.0.0.1:${base}/`);
    expect(saved.token.length).toBeGreaterThanOrEqual(16);
  });

  it('serves /healthz, /readyz and /metrics on every printed port, and the console on the first', async () => {
    for (let port = base + 1; port <= base + 6; port += 1) {
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect({ port, status: health.status }).toEqual({ port, status: 200 });
      const ready = await eventually(
        async () => {
          const response = await fetch(`http://127.0.0.1:${port}/readyz`);
          return response.status === 200 ? await response.json() : undefined;
        },
        { timeoutMs: 20_000, description: `port ${port} ready` },
      );
      expect(ready).toEqual({
        ready: true,
        checks: { nats: { ok: true }, consumers: { ok: true }, journal: { ok: true } },
      });
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(await metrics.text()).toMatch(/^rloop_bus_events_published_total|^# HELP rloop_rounds_started_total/m);
    }
    const page = await fetch(`http://127.0.0.1:${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<script src="/vendor/chart.umd.min.js" defer></script>');
    const chart = await fetch(`http://127.0.0.1:${base}/vendor/chart.umd.min.js`);
    expect(chart.status).toBe(200);
    await expect(fetch(`http://127.0.0.1:${base}/api/session`).then((r) => r.json())).resolves.toMatchObject({
      can_act: false,
      token_configured: true,
    });
  }, 60_000);

  it('stops the whole fleet on Ctrl-C', async () => {
    const exited = new Promise<number | null>((resolve) => up.once('exit', (code) => resolve(code)));
    up.kill('SIGINT');
    await expect(exited).resolves.toBe(0);
    await expect(fetch(`http://127.0.0.1:${base + 1}/healthz`)).rejects.toThrow();
  }, 60_000);
});
