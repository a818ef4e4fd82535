// There is no Docker engine on the build machine, so docker-compose.yml and the Dockerfile are
// checked statically: every service they name exists here, and every variable they set is one
// that service's code reads; every credential comes from a secrets file, never a literal; NATS and
// PostgreSQL are reachable from this host only; every variable the code declares is documented.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ROOT, common, declaredVariables, fleet, variablesRead } from './variables.js';

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string>;
  env_file?: string[];
  secrets?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
  ports?: string[];
  restart?: string;
}

const compose = parseYaml(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, { file?: string }>;
};
/** One-shot steps built from a service's image (the journal's migrations). */
const ONE_SHOT: Readonly<Record<string, { service: string; command: string[] }>> = {
  'journal-migrate': { service: 'journal', command: ['node', 'services/journal/dist/main.js', 'migrate'] },
};
/** The NATS users the shipped server configuration defines (`# <name> (<role>): …` before each). */
const natsUsers = [
  ...readFileSync(join(ROOT, 'deploy/nats/auth.conf'), 'utf8').matchAll(/^\s*# (\S+) \((\w+)\):/gm),
].map((m) => ({ name: m[1] ?? '', role: m[2] ?? '' }));

describe('docker-compose.yml', () => {
  it('runs every service of the fleet, the journal’s migration step, and nothing that is not one', () => {
    const built = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
    expect(built.map(([name]) => name).sort()).toEqual([...fleet, ...Object.keys(ONE_SHOT)].sort());
    for (const [name, service] of built) {
      const image = ONE_SHOT[name]?.service ?? name;
      expect(service.build?.args?.['SERVICE']).toBe(image);
      expect(existsSync(join(ROOT, 'services', image, 'src', 'main.ts'))).toBe(true);
      expect(existsSync(join(ROOT, service.build?.context ?? '', service.build?.dockerfile ?? ''))).toBe(true);
    }
    for (const [name, step] of Object.entries(ONE_SHOT)) {
      expect(compose.services[name]?.command).toEqual(step.command);
      expect(readFileSync(join(ROOT, 'services', step.service, 'src', 'main.ts'), 'utf8')).toContain(
        `process.argv[2] === '${step.command.at(-1) ?? ''}'`,
      );
    }
  });

  it('restarts whatever stops, the servers included (outages.e2e.spec.ts); a one-shot step runs once', () => {
    for (const [name, service] of Object.entries(compose.services))
      expect({ name, restart: service.restart }).toEqual({ name, restart: name in ONE_SHOT ? 'no' : 'unless-stopped' });
  });

  it('brings up NATS with JetStream, a volume and the shipped configuration (users and permissions), and PostgreSQL with a volume and a healthcheck', () => {
    const nats = compose.services['nats'];
    const postgres = compose.services['postgres'];
    expect(nats?.image).toMatch(/^nats:/);
    expect(nats?.command).toEqual(['--config', '/etc/nats/nats-server.conf']);
    expect(nats?.volumes).toEqual(expect.arrayContaining(['./deploy/nats:/etc/nats:ro']));
    const server = readFileSync(join(ROOT, 'deploy/nats/nats-server.conf'), 'utf8');
    expect(server).toMatch(/jetstream\s*\{\s*store_dir: "\/data"\s*\}/);
    expect(server).toMatch(/^http_port: 8222$/m);
    expect(server).toMatch(/^include \.\/auth\.conf$/m);
    expect(nats?.volumes?.some((v) => v.endsWith(':/data'))).toBe(true);
    expect(postgres?.image).toMatch(/^postgres:/);
    expect(postgres?.volumes?.some((v) => v.endsWith('/var/lib/postgresql/data'))).toBe(true);
    expect(postgres?.healthcheck?.test).toContain('pg_isready');
    for (const volume of [...(nats?.volumes ?? []), ...(postgres?.volumes ?? [])].filter((v) => !v.startsWith('./')))
      expect(compose.volumes).toHaveProperty(volume.split(':')[0] ?? '');
  });

  it('publishes ports on 127.0.0.1 only: NATS on this host, PostgreSQL not at all', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const port of service.ports ?? [])
        expect({ name, port }).toEqual({ name, port: expect.stringMatching(/^127\.0\.0\.1:\d+:\d+$/) });
    }
    expect(compose.services['nats']?.ports).toEqual(['127.0.0.1:4222:4222']);
    expect(compose.services['postgres']?.ports).toBeUndefined();
  });

  it('signs every service in to NATS as its own user of the shipped configuration, with its seed as a secret and its own inboxes', () => {
    for (const name of fleet) {
      const service = compose.services[name];
      const env = service?.environment ?? {};
      expect(env['NATS_URL']).toBe('nats://nats:4222');
      expect(service?.depends_on?.['nats']?.condition).toBe('service_healthy');
      expect({ name, user: natsUsers.find((u) => u.name === name)?.role }).toEqual({ name, user: 'service' });
      expect(env['NATS_NKEY']).toBe(`/run/secrets/nats-${name}`);
      expect(env['NATS_INBOX_PREFIX']).toBe(`_INBOX.${name}`);
      expect(service?.secrets).toEqual([`nats-${name}`]);
      expect(compose.secrets?.[`nats-${name}`]).toEqual({ file: `./deploy/secrets/nats/${name}.nk` });
    }
  });

  it('gives the journal its runtime role and the migration step the owner, both from secrets files, after PostgreSQL is healthy', () => {
    const journal = compose.services['journal'];
    const migrate = compose.services['journal-migrate'];
    const postgres = compose.services['postgres'];
    expect(journal?.env_file).toEqual(['deploy/secrets/postgres/journal.env']);
    expect(migrate?.env_file).toEqual(['deploy/secrets/postgres/migrate.env']);
    expect(journal?.depends_on).toMatchObject({
      postgres: { condition: 'service_healthy' },
      'journal-migrate': { condition: 'service_completed_successfully' },
    });
    expect(migrate?.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } });
    const journalVars = variablesRead('journal');
    for (const variable of ['DATABASE_URL', 'DATABASE_MIGRATION_URL']) expect(journalVars.has(variable)).toBe(true);
    expect(postgres?.environment).toMatchObject({
      POSTGRES_USER: 'rloop',
      POSTGRES_DB: 'rloop',
      POSTGRES_PASSWORD_FILE: '/run/secrets/postgres-owner-password',
    });
    expect(postgres?.secrets).toEqual(['postgres-owner-password']);
    expect(compose.secrets?.['postgres-owner-password']).toEqual({ file: './deploy/secrets/postgres/owner-password' });
    // The secrets files are generated, never committed.
    expect(readFileSync(join(ROOT, '.gitignore'), 'utf8')).toMatch(/^deploy\/secrets\/$/m);
  });

  it('writes no credential as a literal: no password, token or URL user info in any variable, every secret a file under deploy/secrets', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [variable, value] of Object.entries(service.environment ?? {})) {
        expect({ name, variable, userInfo: /:\/\/[^/@\s]*@/.test(value) }).toEqual({ name, variable, userInfo: false });
        if (/PASSWORD|TOKEN|SECRET|_KEY$/.test(variable))
          expect({ name, variable, value }).toEqual({
            name,
            variable,
            value: expect.stringMatching(/^(\/run\/secrets\/[\w-]+|\$\{[A-Z_]+:-\})$/),
          });
      }
      for (const secret of service.secrets ?? []) expect(compose.secrets).toHaveProperty(secret);
      for (const file of service.env_file ?? []) expect(file).toMatch(/^deploy\/secrets\//);
    }
    for (const [name, secret] of Object.entries(compose.secrets ?? {}))
      expect({ name, file: secret.file }).toEqual({ name, file: expect.stringMatching(/^\.\/deploy\/secrets\//) });
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
      if (name !== 'journal')
        expect({ name, journal: service?.depends_on?.['journal']?.condition }).toEqual({
          name,
          journal: 'service_healthy',
        });
    }
    expect(compose.services['journal']?.depends_on?.['journal']).toBeUndefined();
    // The console's pages, on this host only (a reverse proxy with TLS serves them to others).
    expect(compose.services['console']?.ports).toContain(
      `127.0.0.1:9460:${compose.services['console']?.environment?.['RLOOP_HTTP_PORT'] ?? ''}`,
    );
  });

  it('sets only variables the code of each service reads', () => {
    expect(common).toEqual(
      expect.arrayContaining(['NATS_URL', 'NATS_NKEY', 'NATS_INBOX_PREFIX', 'RLOOP_NAMESPACE', 'RLOOP_HOME']),
    );
    for (const name of [...fleet, ...Object.keys(ONE_SHOT)]) {
      const read = variablesRead(ONE_SHOT[name]?.service ?? name);
      const set = Object.keys(compose.services[name]?.environment ?? {});
      expect({ service: name, unknown: set.filter((v) => !read.has(v)) }).toEqual({ service: name, unknown: [] });
    }
  });
});

describe('the documentation of the environment', () => {
  it('documents every variable an environment schema declares, in the README or docs/', () => {
    const schemas = [
      'libs/bus/src/service-config.ts',
      'libs/critic-sdk/src/options.ts',
      ...fleet.map((name) => `services/${name}/src/config.ts`),
      'services/critic-runner/src/registry/registry-config.ts',
    ];
    const declared = [...new Set(schemas.flatMap((file) => declaredVariables(readFileSync(join(ROOT, file), 'utf8'))))];
    expect(declared).toEqual(expect.arrayContaining(['NATS_URL', 'RLOOP_JOURNAL_BATCH', 'RLOOP_CRITIC_HEARTBEAT_MS']));
    const docs = [
      join(ROOT, 'README.md'),
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => join(ROOT, 'docs', f)),
    ]
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
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
    expect(readFileSync(join(ROOT, 'scripts', 'container-entrypoint.sh'), 'utf8')).toContain(
      'exec node "$app/services/$SERVICE/dist/main.js"',
    );
    expect(dockerfile).toMatch(/RLOOP_HOME=\/data/);
    for (const copied of dockerfile.matchAll(/^COPY (?!--from)(\S+)/gm))
      expect(existsSync(join(ROOT, copied[1] ?? ''))).toBe(true);
  });
});
