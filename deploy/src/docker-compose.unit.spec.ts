// There is no Docker engine on the build machine, so docker-compose.yml and the Dockerfile are
// checked statically: every service they name exists here, and every variable they set is one
// that service's code reads; and every variable the code declares is documented.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
  ports?: string[];
  restart?: string;
}

const compose = parseYaml(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService>; volumes?: Record<string, unknown> };
const fleet = readdirSync(join(ROOT, 'services')).filter((name) => existsSync(join(ROOT, 'services', name, 'package.json')));

/** Variables an environment schema declares: `NAME: z…` lines inside `…Environment = …({ … })`. */
function declaredVariables(source: string): string[] {
  const names: string[] = [];
  for (const block of source.matchAll(/Environment\s*=\s*[\w.]*\(\{([\s\S]*?)\n\}\)/g)) {
    for (const match of (block[1] ?? '').matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm)) names.push(match[1] ?? '');
  }
  return names;
}

const common = declaredVariables(readFileSync(join(ROOT, 'libs/bus/src/service-config.ts'), 'utf8'));

function variablesRead(service: string): Set<string> {
  const config = readFileSync(join(ROOT, 'services', service, 'src', 'config.ts'), 'utf8');
  return new Set([...common, ...declaredVariables(config)]);
}

describe('docker-compose.yml', () => {
  it('runs every service of the fleet, and nothing that is not one', () => {
    const built = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
    expect(built.map(([name]) => name).sort()).toEqual([...fleet].sort());
    for (const [name, service] of built) {
      expect(service.build?.args?.['SERVICE']).toBe(name);
      expect(existsSync(join(ROOT, 'services', name, 'src', 'main.ts'))).toBe(true);
      expect(existsSync(join(ROOT, service.build?.context ?? '', service.build?.dockerfile ?? ''))).toBe(true);
    }
  });

  it('restarts whatever stops, the servers included: the fleet waits out their restarts (outages.e2e.spec.ts)', () => {
    for (const [name, service] of Object.entries(compose.services)) expect({ name, restart: service.restart }).toEqual({ name, restart: 'unless-stopped' });
  });

  it('brings up NATS with JetStream and a volume, and PostgreSQL with a volume and a healthcheck', () => {
    const nats = compose.services['nats'];
    const postgres = compose.services['postgres'];
    expect(nats?.image).toMatch(/^nats:/);
    expect(nats?.['command' as keyof ComposeService]).toEqual(expect.arrayContaining(['--jetstream', '--store_dir', '/data']));
    expect(nats?.volumes?.some((v) => v.endsWith(':/data'))).toBe(true);
    expect(postgres?.image).toMatch(/^postgres:/);
    expect(postgres?.volumes?.some((v) => v.endsWith('/var/lib/postgresql/data'))).toBe(true);
    expect(postgres?.healthcheck?.test).toContain('pg_isready');
    for (const volume of [...(nats?.volumes ?? []), ...(postgres?.volumes ?? [])]) expect(compose.volumes).toHaveProperty(volume.split(':')[0] ?? '');
  });

  it('wires NATS_URL into every service and DATABASE_URL into the journal, at the compose services that exist', () => {
    const postgres = compose.services['postgres']?.environment ?? {};
    for (const name of fleet) {
      const env = compose.services[name]?.environment ?? {};
      expect(env['NATS_URL']).toBe('nats://nats:4222');
      expect(compose.services[name]?.depends_on?.['nats']?.condition).toBe('service_healthy');
    }
    const url = new URL(compose.services['journal']?.environment?.['DATABASE_URL'] ?? '');
    expect(url.hostname).toBe('postgres');
    expect(url.username).toBe(postgres['POSTGRES_USER']);
    expect(url.password).toBe(postgres['POSTGRES_PASSWORD']);
    expect(url.pathname).toBe(`/${postgres['POSTGRES_DB']}`);
    expect(compose.services['journal']?.depends_on?.['postgres']?.condition).toBe('service_healthy');
  });

  it('checks each service through its /readyz on its RLOOP_HTTP_PORT, and starts the others once the journal is ready', () => {
    for (const name of fleet) {
      const service = compose.services[name];
      const port = service?.environment?.['RLOOP_HTTP_PORT'];
      expect({ name, port }).toEqual({ name, port: expect.stringMatching(/^[1-9]\d*$/) });
      // Another container (Prometheus) scrapes /metrics, so the endpoint listens beyond loopback.
      expect({ name, host: service?.environment?.['RLOOP_HTTP_HOST'] }).toEqual({ name, host: '0.0.0.0' });
      const test = (service?.healthcheck?.test ?? []).join(' ');
      expect({ name, test }).toEqual({ name, test: expect.stringContaining(`http://127.0.0.1:${port ?? ''}/readyz`) });
      // The image has node but neither curl nor wget.
      expect(service?.healthcheck?.test?.[1]).toBe('node');
      if (name !== 'journal') expect({ name, journal: service?.depends_on?.['journal']?.condition }).toEqual({ name, journal: 'service_healthy' });
    }
    expect(compose.services['journal']?.depends_on?.['journal']).toBeUndefined();
    expect(compose.services['console']?.ports).toContain(`9460:${compose.services['console']?.environment?.['RLOOP_HTTP_PORT'] ?? ''}`);
  });

  it('sets only variables the code of each service reads', () => {
    expect(common).toEqual(expect.arrayContaining(['NATS_URL', 'RLOOP_NAMESPACE', 'RLOOP_HOME']));
    for (const name of fleet) {
      const read = variablesRead(name);
      const set = Object.keys(compose.services[name]?.environment ?? {});
      expect({ service: name, unknown: set.filter((v) => !read.has(v)) }).toEqual({ service: name, unknown: [] });
    }
  });
});

describe('the documentation of the environment', () => {
  it('documents every variable an environment schema declares, in the README or docs/', () => {
    const schemas = ['libs/bus/src/service-config.ts', 'libs/critic-sdk/src/options.ts', ...fleet.map((name) => `services/${name}/src/config.ts`), 'services/critic-runner/src/registry/registry-config.ts'];
    const declared = [...new Set(schemas.flatMap((file) => declaredVariables(readFileSync(join(ROOT, file), 'utf8'))))];
    expect(declared).toEqual(expect.arrayContaining(['NATS_URL', 'RLOOP_JOURNAL_BATCH', 'RLOOP_CRITIC_HEARTBEAT_MS']));
    const docs = [join(ROOT, 'README.md'), ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(ROOT, 'docs', f))].map((f) => readFileSync(f, 'utf8')).join('\n');
    expect(declared.filter((name) => !docs.includes(`\`${name}\``)).sort()).toEqual([]);
  });
});

describe('Dockerfile', () => {
  it('builds any service named by the SERVICE build argument and keeps its data under RLOOP_HOME', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^ARG SERVICE$/m);
    expect(dockerfile).toMatch(/^ENV SERVICE=\$\{SERVICE\}/m);
    // The entry point starts the service SERVICE names (without it the image is `rloop review`).
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/app\/scripts\/container-entrypoint\.sh"\]$/m);
    expect(readFileSync(join(ROOT, 'scripts', 'container-entrypoint.sh'), 'utf8')).toContain('exec node "$app/services/$SERVICE/dist/main.js"');
    expect(dockerfile).toMatch(/RLOOP_HOME=\/data/);
    for (const copied of dockerfile.matchAll(/^COPY (?!--from)(\S+)/gm)) expect(existsSync(join(ROOT, copied[1] ?? ''))).toBe(true);
  });
});
