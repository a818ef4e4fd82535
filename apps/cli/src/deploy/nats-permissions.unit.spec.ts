import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { subjectMatches } from '@rloop/testing';
import { keysOfAuthConfig, renderAuthConfig } from './nats-config.js';
import { FLEET_BUS_USE, type NatsIdentity, fleetPermissions } from './nats-permissions.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const identities = fleetPermissions({
  namespace: 'rloop',
  critics: ['examples/no-console-log', 'examples/todo-without-ticket'],
});

function user(name: string): NatsIdentity {
  const found = identities.find((i) => i.name === name);
  if (found === undefined) throw new Error(`no user ${name}`);
  return found;
}

/** Whether the identity may publish to a concrete subject (allow minus deny, NATS wildcards). */
function mayPublish(identity: NatsIdentity, subject: string): boolean {
  return (
    identity.publish.allow.some((p) => subjectMatches(p, subject)) &&
    !identity.publish.deny.some((p) => subjectMatches(p, subject))
  );
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('the fleet’s NATS permissions', () => {
  it('knows every handler each service declares, and no other (kept beside @OnEvent/@OnEventBatch/@OnRequest)', () => {
    for (const [service, use] of Object.entries(FLEET_BUS_USE)) {
      const code = sources(join(ROOT, 'services', service, 'src'))
        .map((f) => readFileSync(f, 'utf8'))
        .join('\n');
      const handlers = [...code.matchAll(/@OnEvent(?:Batch)?\(\s*([^,]+),\s*\{[^}]*name:\s*'([^']+)'/g)]
        .map((m) => `${m[2]} ${m[1]}`)
        .sort();
      expect({ service, handlers }).toEqual({
        service,
        handlers: use.consumes
          .map((c) => `${c.handler} ${c.selector.startsWith('channel:') ? 'ALL_JOURNALED_EVENTS' : `'${c.selector}'`}`)
          .sort(),
      });
      const answers = [
        ...new Set(
          [...code.matchAll(/@OnRequest\('([^']+)'\)/g)].map((m) =>
            m[1]?.startsWith('journal.') === true ? 'journal.*' : m[1],
          ),
        ),
      ];
      expect({ service, answers }).toEqual({ service, answers: [...use.answers] });
    }
  });

  it('lets the submitter post plans and read its replies, nothing else', () => {
    expect(user('submitter').publish).toEqual({ allow: ['rloop.v1.plans.submit'], deny: [] });
    expect(user('submitter').subscribe.allow).toEqual(['_INBOX.submitter.>']);
    expect(user('submitter').allowResponses).toBe(false);
  });

  it('lets ops follow escalations, resume or stop, query the journal and rebuild it — and decide nothing else', () => {
    const ops = user('ops');
    for (const subject of [
      'rloop.v1.events.loop_resumed.p',
      'rloop.v1.events.loop_stopped.p',
      'rloop.v1.journal.rebuild',
      'rloop.v1.journal.status',
    ])
      expect({ subject, ok: mayPublish(ops, subject) }).toEqual({ subject, ok: true });
    for (const subject of [
      'rloop.v1.plans.submit',
      'rloop.v1.events.loop_converged.p',
      'rloop.v1.events.round_started.p',
      'rloop.v1.events.findings_reported.p.c',
      '$JS.API.STREAM.CREATE.RLOOP_EVENTS',
      '$JS.API.STREAM.DELETE.RLOOP_EVENTS',
    ]) {
      expect({ subject, ok: mayPublish(ops, subject) }).toEqual({ subject, ok: false });
    }
    expect(ops.subscribe.allow).toEqual(['_INBOX.ops.>', 'rloop.v1.events.escalation_raised.*']);
  });

  it('reserves journal.rebuild to ops', () => {
    expect(identities.filter((i) => mayPublish(i, 'rloop.v1.journal.rebuild')).map((i) => i.name)).toEqual(['ops']);
  });

  it('binds each external critic to its own reports, registration, heartbeats, registry key and dispatch consumer', () => {
    const critic = user('critic-examples_no-console-log');
    const own = [
      'rloop.v1.events.findings_reported.some-plan.examples_no-console-log',
      'rloop.v1.events.critic_failed.some-plan.examples_no-console-log',
      'rloop.v1.critics.critic_heartbeat.examples_no-console-log',
      '$KV.RLOOP_CRITIC_HEALTH.examples_no-console-log.host_1',
      '$JS.API.CONSUMER.MSG.NEXT.RLOOP_EVENTS.critic-examples_no-console-log-dispatch',
      '$JS.ACK.RLOOP_EVENTS.critic-examples_no-console-log-dispatch.1.2.3.4.5',
      'rloop.v1.journal.event',
    ];
    const others = [
      'rloop.v1.events.findings_reported.some-plan.security_sast-scanner',
      'rloop.v1.events.findings_reported.some-plan',
      'rloop.v1.critics.critic_heartbeat.examples_todo-without-ticket',
      '$KV.RLOOP_CRITIC_HEALTH.security_sast-scanner.host_1',
      '$JS.API.CONSUMER.MSG.NEXT.RLOOP_EVENTS.journal-journal-ingest',
      '$JS.API.CONSUMER.CREATE.RLOOP_EVENTS.critic-examples_no-console-log-dispatch.rloop.v1.events.>',
      '$JS.API.CONSUMER.DURABLE.CREATE.RLOOP_EVENTS.critic-examples_no-console-log-dispatch',
      '$JS.API.STREAM.UPDATE.RLOOP_EVENTS',
      'rloop.v1.events.round_started.some-plan',
      'rloop.v1.journal.events',
    ];
    for (const subject of own) expect({ subject, ok: mayPublish(critic, subject) }).toEqual({ subject, ok: true });
    for (const subject of others) expect({ subject, ok: mayPublish(critic, subject) }).toEqual({ subject, ok: false });
  });

  it('gives every user its own inboxes, and lets only request answerers respond', () => {
    for (const identity of identities) expect(identity.subscribe.allow[0]).toBe(`${identity.inboxPrefix}.>`);
    expect(new Set(identities.map((i) => i.inboxPrefix)).size).toBe(identities.length);
    expect(identities.filter((i) => i.allowResponses).map((i) => i.name)).toEqual(['journal', 'gate']);
  });
});

describe('deploy/nats/auth.conf', () => {
  it('is what `rloop deploy nats-config` writes today (the shipped example, with keys whose seeds were thrown away)', () => {
    const shipped = readFileSync(join(ROOT, 'deploy/nats/auth.conf'), 'utf8');
    const keys = keysOfAuthConfig(shipped);
    expect([...keys.keys()]).toEqual(identities.map((i) => i.name));
    expect(shipped).toBe(renderAuthConfig(identities, keys, 'rloop'));
  });

  it('is included by the server configuration, which lets no anonymous client in', () => {
    const server = readFileSync(join(ROOT, 'deploy/nats/nats-server.conf'), 'utf8');
    expect(server).toMatch(/^include \.\/auth\.conf$/m);
    expect(server).not.toMatch(/no_auth_user|authorization\s*\{/);
  });
});
