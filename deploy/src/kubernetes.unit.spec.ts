// There is no Kubernetes here, so deploy/k8s is checked statically: every object validates against
// the Kubernetes API schemas (kubernetes-models, generated from the OpenAPI definitions); every
// service of the fleet runs with the replicas docs/scaling.md gives, a readiness probe on its
// /readyz and a liveness probe on its /healthz at RLOOP_HTTP_PORT, only variables its code reads,
// every node of the NATS cluster in NATS_URL and three copies of every stream; every credential
// comes from a Secret. The compose cluster (deploy/compose.cluster.yml) is checked the same way.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { ConfigMap, PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import type { IContainer, IEnvVar, IPodSpec } from 'kubernetes-models/v1';
import { ROOT, fleet, variablesRead } from './variables.js';

interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly [key: string]: unknown;
}

/** The Kubernetes models these manifests use, by apiVersion/kind: each validates its object against the API schema. */
const MODELS: Readonly<Record<string, new (data: never) => { validate(): void }>> = {
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'batch/v1/Job': Job,
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Service': Service,
};

const K8S = join(ROOT, 'deploy', 'k8s');
const kustomization = parseYaml(readFileSync(join(K8S, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
const manifests: Manifest[] = kustomization.resources.flatMap((file) =>
  parseAllDocuments(readFileSync(join(K8S, file), 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return doc.toJS() as Manifest;
  }),
);

function find<T>(kind: string, name: string): T {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (found === undefined) throw new Error(`no ${kind} ${name} in deploy/k8s`);
  return found as unknown as T;
}

const podOf = (workload: { spec: { template: { spec: IPodSpec } } }): IPodSpec => workload.spec.template.spec;
const envOf = (container: IContainer): Record<string, IEnvVar> =>
  Object.fromEntries((container.env ?? []).map((e) => [e.name, e]));
const nats = find<{ spec: { replicas: number; serviceName: string; template: { spec: IPodSpec } } }>(
  'StatefulSet',
  'nats',
);
/** nats://nats-0.nats:4222,… — every pod of the StatefulSet through its headless service. */
const clusterUrl = Array.from(
  { length: nats.spec.replicas },
  (_, i) => `nats://nats-${i}.${nats.spec.serviceName}:4222`,
).join(',');
/** The replicas each service runs with: what the chaos test runs (panel, synthesizer, critic-runner 3, implementer 2), one for the rest. */
const REPLICAS: Readonly<Record<string, number>> = {
  journal: 1,
  gate: 1,
  panel: 3,
  'critic-runner': 3,
  synthesizer: 3,
  implementer: 2,
  console: 1,
};

describe('deploy/k8s', () => {
  it('holds only objects that validate against the Kubernetes API schemas', () => {
    expect(manifests.length).toBeGreaterThan(0);
    for (const manifest of manifests) {
      const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
      expect({ object: `${manifest.kind} ${manifest.metadata.name}`, known: Model !== undefined }).toEqual({
        object: `${manifest.kind} ${manifest.metadata.name}`,
        known: true,
      });
      if (Model === undefined) continue;
      expect(() => new Model(manifest as never).validate()).not.toThrow();
    }
  });

  it('catches a manifest that breaks the schema (the validation is real)', () => {
    const deployment = structuredClone(
      find<Manifest & { spec: { template: { spec: IPodSpec } } }>('Deployment', 'panel'),
    );
    const container = podOf(deployment).containers[0] as { ports: { containerPort: unknown }[] };
    (container.ports[0] as { containerPort: unknown }).containerPort = 'http';
    expect(() => new Deployment(deployment as never).validate()).toThrow(/containerPort must be integer/);
  });

  it('runs every service of the fleet with its replicas, its image, probes on /readyz and /healthz at RLOOP_HTTP_PORT', () => {
    const deployments = manifests.filter((m) => m.kind === 'Deployment').map((m) => m.metadata.name);
    expect(deployments.sort()).toEqual([...fleet].sort());
    for (const name of fleet) {
      const deployment = find<{
        spec: {
          replicas: number;
          selector: { matchLabels: Record<string, string> };
          template: { metadata: { labels: Record<string, string> }; spec: IPodSpec };
        };
      }>('Deployment', name);
      expect({ name, replicas: deployment.spec.replicas }).toEqual({ name, replicas: REPLICAS[name] });
      expect(deployment.spec.template.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
      const [container] = podOf(deployment).containers;
      if (container === undefined) throw new Error(`${name}: no container`);
      expect(container.image).toBe(`refinement-loop/${name}:0.1.0`);
      expect(existsSync(join(ROOT, 'services', name, 'src', 'main.ts'))).toBe(true);
      const env = envOf(container);
      const port = Number(env['RLOOP_HTTP_PORT']?.value);
      expect(port).toBeGreaterThan(0);
      expect(env['RLOOP_HTTP_HOST']?.value).toBe('0.0.0.0');
      expect(container.ports).toEqual([{ name: 'http', containerPort: port }]);
      expect({ name, readiness: container.readinessProbe?.httpGet }).toEqual({
        name,
        readiness: { path: '/readyz', port: 'http' },
      });
      expect({ name, liveness: container.livenessProbe?.httpGet }).toEqual({
        name,
        liveness: { path: '/healthz', port: 'http' },
      });
      expect(podOf(deployment).securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    }
    const ops = readFileSync(join(ROOT, 'libs/observability/src/ops-server.ts'), 'utf8');
    expect(ops).toContain("case '/readyz'");
    expect(ops).toContain("case '/healthz'");
  });

  it('gives every service all three NATS nodes, three copies of every stream, its own nkey seed from a Secret, and only variables its code reads', () => {
    expect(nats.spec.replicas).toBe(3);
    for (const name of fleet) {
      const [container] = podOf(find('Deployment', name)).containers;
      if (container === undefined) throw new Error(`${name}: no container`);
      const env = envOf(container);
      expect({ name, NATS_URL: env['NATS_URL']?.value }).toEqual({ name, NATS_URL: clusterUrl });
      expect({ name, replicas: env['RLOOP_STREAM_REPLICAS']?.value }).toEqual({ name, replicas: '3' });
      expect(env['NATS_INBOX_PREFIX']?.value).toBe(`_INBOX.${name}`);
      expect(env['NATS_NKEY']?.value).toBe('/run/secrets/nats/seed');
      const seed = podOf(find('Deployment', name)).volumes?.find((v) => v.name === 'nats-seed');
      expect(seed?.secret?.secretName).toBe(`rloop-nats-${name}`);
      expect(container.volumeMounts).toEqual(
        expect.arrayContaining([{ name: 'nats-seed', mountPath: '/run/secrets/nats', readOnly: true }]),
      );
      const read = variablesRead(name);
      expect({ name, unknown: Object.keys(env).filter((v) => !read.has(v)) }).toEqual({ name, unknown: [] });
      // No credential as a literal: a secret variable comes from a Secret.
      for (const [variable, value] of Object.entries(env)) {
        if (/PASSWORD|TOKEN|SECRET|_KEY$|DATABASE_/.test(variable))
          expect({ name, variable, from: value.valueFrom?.secretKeyRef?.name }).toEqual({
            name,
            variable,
            from: expect.stringMatching(/^rloop-/),
          });
        expect({ name, variable, userInfo: /:\/\/[^/@\s,]*@/.test(value.value ?? '') }).toEqual({
          name,
          variable,
          userInfo: false,
        });
      }
    }
  });

  it('gives the journal PostgreSQL by URL from a Secret, and migrates as the owner in a Job first', () => {
    const journal = envOf(podOf(find('Deployment', 'journal')).containers[0] as IContainer);
    expect(journal['DATABASE_URL']?.valueFrom?.secretKeyRef).toEqual({ name: 'rloop-postgres', key: 'database-url' });
    const job = find<{ spec: { template: { spec: IPodSpec } } }>('Job', 'journal-migrate');
    const migrate = podOf(job).containers[0] as IContainer;
    expect(migrate.command).toEqual(['node', 'services/journal/dist/main.js', 'migrate']);
    expect(readFileSync(join(ROOT, 'services/journal/src/main.ts'), 'utf8')).toContain("process.argv[2] === 'migrate'");
    const env = envOf(migrate);
    expect(env['DATABASE_MIGRATION_URL']?.valueFrom?.secretKeyRef).toEqual({
      name: 'rloop-postgres',
      key: 'migration-url',
    });
    const read = variablesRead('journal');
    expect(Object.keys(env).filter((v) => !read.has(v))).toEqual([]);
  });

  it('runs NATS as a three-node JetStream cluster: one volume per node, routes naming every pod, ready on JetStream', () => {
    const config = find<{ data: Record<string, string> }>('ConfigMap', 'rloop-nats-config').data['nats.conf'] ?? '';
    expect(config).toMatch(/jetstream\s*\{\s*store_dir: "\/data"\s*\}/);
    for (let i = 0; i < nats.spec.replicas; i += 1) expect(config).toContain(`"nats-route://nats-${i}.nats:6222"`);
    expect(config).toMatch(/^server_name: \$POD_NAME$/m);
    const headless = find<{
      spec: { clusterIP: string; publishNotReadyAddresses: boolean; ports: { name: string; port: number }[] };
    }>('Service', 'nats');
    expect(headless.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
    expect(headless.spec.ports.map((p) => p.port).sort()).toEqual([4222, 6222, 8222]);
    const [container] = podOf(nats).containers;
    expect(container?.readinessProbe?.httpGet?.path).toBe('/healthz?js-enabled-only=true');
    expect(container?.volumeMounts).toEqual(expect.arrayContaining([{ name: 'data', mountPath: '/data' }]));
    expect(
      find<{ spec: { volumeClaimTemplates: { metadata: { name: string } }[] } }>(
        'StatefulSet',
        'nats',
      ).spec.volumeClaimTemplates.map((t) => t.metadata.name),
    ).toEqual(['data']);
  });
});

describe('deploy/compose.cluster.yml', () => {
  const base = parseYaml(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string> }>;
  };
  const overlay = parseYaml(readFileSync(join(ROOT, 'deploy', 'compose.cluster.yml'), 'utf8'), { merge: true }) as {
    services: Record<
      string,
      { command?: string[]; image?: string; volumes?: string[]; environment?: Record<string, string> }
    >;
    volumes: Record<string, unknown>;
  };
  const nodes = ['nats', 'nats-2', 'nats-3'];

  it('makes three NATS nodes, each on its own volume and configuration, routed to each other, JetStream on', () => {
    nodes.forEach((node, i) => {
      const command = overlay.services[node]?.command ?? [];
      expect(command).toEqual(['--config', `/etc/nats/cluster/nats-${i + 1}.conf`]);
      const config = readFileSync(join(ROOT, 'deploy', 'nats', 'cluster', `nats-${i + 1}.conf`), 'utf8');
      expect(config).toMatch(/jetstream\s*\{\s*store_dir: "\/data"\s*\}/);
      expect(config).toContain(`server_name: nats-${i + 1}`);
      for (const host of nodes) expect(config).toContain(`"nats-route://${host}:6222"`);
      expect(config).toMatch(/^include \.\.\/auth\.conf$/m);
    });
    for (const node of ['nats-2', 'nats-3']) {
      expect(overlay.services[node]?.image).toMatch(/^nats:/);
      const volume = overlay.services[node]?.volumes?.find((v) => v.endsWith(':/data'))?.split(':')[0] ?? '';
      expect(overlay.volumes).toHaveProperty(volume);
      expect(overlay.services[node]?.volumes).toContain('./deploy/nats:/etc/nats:ro');
    }
  });

  it('points every service of the fleet at all three nodes, with three copies of every stream', () => {
    for (const name of fleet) {
      const env = { ...base.services[name]?.environment, ...overlay.services[name]?.environment };
      expect({ name, NATS_URL: env['NATS_URL'] }).toEqual({
        name,
        NATS_URL: 'nats://nats:4222,nats://nats-2:4222,nats://nats-3:4222',
      });
      expect({ name, replicas: env['RLOOP_STREAM_REPLICAS'] }).toEqual({ name, replicas: '3' });
      const read = variablesRead(name);
      expect(Object.keys(overlay.services[name]?.environment ?? {}).filter((v) => !read.has(v))).toEqual([]);
    }
  });
});
