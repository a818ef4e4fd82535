// Who may publish and subscribe to what on the fleet's NATS: one identity per service and per
// external role (submitter, ops, each external critic), each limited to its own subjects. Pure:
// `rloop deploy nats-config` renders it into a nats-server configuration, and the permission
// end-to-end test runs the fleet under exactly that configuration.
import { type EventSelector, type RequestOperation, consumerTarget, durableName, requestSubject } from '@rloop/bus';
import { criticServiceName } from '@rloop/critic-sdk';
import { type EventType, type Subjects, subjectToken, subjectsFor } from '@rloop/contracts';

export const EXTERNAL_ROLES = ['submitter', 'ops', 'critic'] as const;
export type Role = 'service' | (typeof EXTERNAL_ROLES)[number];

/** One NATS user: its name (also its inbox token), its role, and what it may publish and subscribe to. */
export interface NatsIdentity {
  readonly name: string;
  readonly role: Role;
  /** What it is for, one line (a comment in the configuration). */
  readonly description: string;
  readonly publish: { readonly allow: readonly string[]; readonly deny: readonly string[] };
  readonly subscribe: { readonly allow: readonly string[] };
  /** May answer requests it received (reply subjects), and only those, once each. */
  readonly allowResponses: boolean;
  /** Its reply inboxes: NATS_INBOX_PREFIX for the client, `<prefix>.>` in its subscribe permission. */
  readonly inboxPrefix: string;
}

/** What one service of the fleet does on the bus (its handlers, its publishes, its requests). */
interface ServiceBusUse {
  readonly description: string;
  /** Durable consumers: the handler name given to @OnEvent/@OnEventBatch, and what it selects. */
  readonly consumes: readonly { readonly handler: string; readonly selector: EventSelector }[];
  readonly publishes: readonly EventType[];
  /** Request operations it answers (@OnRequest); `journal.*` is every journal query. */
  readonly answers: readonly (RequestOperation | 'journal.*')[];
  /** The critic registry bucket: written by critic hosts, read by the panel and the console. */
  readonly registry: 'none' | 'read' | 'write';
  /** Events it follows live with a plain subscription (no consumer, nothing acked). */
  readonly follows?: readonly EventType[];
  /** The namespace's journal claim (KV `<NS>_JOURNAL`): written by the journal only. */
  readonly journalClaim?: boolean;
}

/**
 * The fleet's use of the bus, service by service. Kept beside the handlers' declarations by
 * `nats-permissions.unit.spec.ts`, which reads each service's @OnEvent/@OnRequest declarations,
 * and proven sufficient by `bus-permissions.e2e.spec.ts`, which runs a loop under it.
 */
export const FLEET_BUS_USE: Readonly<Record<string, ServiceBusUse>> = {
  journal: {
    description: 'the journal: appends every event, answers queries, announces commits',
    consumes: [{ handler: 'journal-ingest', selector: 'channel:events' }],
    publishes: ['JournalCommitted'],
    answers: ['journal.*'],
    registry: 'none',
    journalClaim: true,
  },
  gate: {
    description:
      'the gate: answers plans.submit, gates accepted plans, queues overlapping ones and starts them when the loops they wait for end',
    consumes: [
      { handler: 'gate-plans', selector: 'PlanSubmitted' },
      { handler: 'gate-scope-release', selector: 'JournalCommitted' },
    ],
    publishes: ['PlanSubmitted', 'PlanRejected', 'LoopGated', 'LoopQueued'],
    answers: ['plans.submit'],
    registry: 'none',
  },
  panel: {
    description: 'the panel: decides rounds, fixes, phases, convergence and escalations, and detects stuck loops',
    consumes: [
      { handler: 'panel-decide', selector: 'JournalCommitted' },
      // The loop-detection reactor's own durable consumer (its checkpoint).
      { handler: 'panel-detect', selector: 'JournalCommitted' },
      // The timer of a fix nobody serves (RLOOP_FIX_DEADLINE_MS): it escalates a plan left in "fixing".
      { handler: 'panel-fix-deadline', selector: 'JournalCommitted' },
    ],
    // CriticFailed: a core critic the panel cannot dispatch (no live host) fails the round it starts.
    publishes: [
      'RoundStarted',
      'FixRequested',
      'PhaseAdvanced',
      'LoopConverged',
      'LoopBypassed',
      'EscalationRaised',
      'CriticFailed',
      'LoopDetected',
    ],
    answers: [],
    registry: 'read',
  },
  'critic-runner': {
    description: 'the critic-runner: hosts the built-in (and LLM) critics',
    consumes: [{ handler: 'critic-runner-committed-rounds', selector: 'JournalCommitted' }],
    publishes: [
      'FindingsReported',
      'CriticFailed',
      'UsageRecorded',
      'EscalationRaised',
      'CriticRegistered',
      'CriticHeartbeat',
    ],
    answers: [],
    registry: 'write',
  },
  synthesizer: {
    description: 'the synthesizer: writes each round’s letter, times out silent critics',
    consumes: [{ handler: 'synthesizer-letters', selector: 'JournalCommitted' }],
    publishes: ['LetterWritten', 'CriticFailed'],
    answers: [],
    registry: 'none',
  },
  implementer: {
    description: 'the implementer: baselines and fixes',
    consumes: [
      { handler: 'implementer-committed-baselines', selector: 'JournalCommitted' },
      { handler: 'implementer-committed-fixes', selector: 'JournalCommitted' },
      { handler: 'implementer-committed-handoffs', selector: 'JournalCommitted' },
    ],
    publishes: [
      'BaselineRecorded',
      'TestsWritten',
      'FixApplied',
      'UsageRecorded',
      'EscalationRaised',
      'BranchHandedOff',
    ],
    answers: [],
    registry: 'none',
  },
  console: {
    description:
      'the console: pages over the journal and live loop updates; resumes and stops loops for a person with the ops token',
    consumes: [],
    publishes: ['LoopResumed', 'LoopStopped'],
    answers: [],
    registry: 'read',
    follows: ['JournalCommitted'],
  },
};

/** Journal queries only ops may ask: they change the journal's projections. */
export const OPS_ONLY_QUERIES = ['journal.rebuild'] as const satisfies readonly RequestOperation[];

/** NATS wildcards in a permission: a subject pattern for one event type on every plan (and critic). */
function eventPattern(subjects: Subjects, type: EventType, critic?: string): string {
  return subjects.eventFilter(type, critic);
}

/** The subject of a request operation, or every journal query for `journal.*`. */
function operationSubject(subjects: Subjects, operation: RequestOperation | 'journal.*'): string {
  return operation === 'journal.*' ? subjects.journalQueryFilter : requestSubject(subjects, operation);
}

function jsApi(...parts: string[]): string {
  return ['$JS.API', ...parts].join('.');
}

/**
 * Create (or re-check after a reconnect) the namespace's streams, and list their consumers (the
 * readiness check looks for its own). Fleet services only: an external client never changes them.
 */
function streamProvisioning(subjects: Subjects): string[] {
  return Object.values(subjects.streams).flatMap((stream) => [
    jsApi('STREAM.INFO', stream),
    jsApi('STREAM.CREATE', stream),
    jsApi('STREAM.UPDATE', stream),
    jsApi('CONSUMER.LIST', stream),
  ]);
}

/** A durable consumer's lifecycle, bound to its name and (in the create subject, NATS ≥ 2.9) its filter. */
function durableUse(
  subjects: Subjects,
  service: string,
  handler: string,
  selector: EventSelector,
): { publish: string[]; name: string } {
  const name = durableName(service, handler);
  const { stream, filter } = consumerTarget(subjects, selector);
  return {
    name,
    publish: [
      jsApi('CONSUMER.INFO', stream, name),
      jsApi('CONSUMER.CREATE', stream, name, filter),
      jsApi('CONSUMER.MSG.NEXT', stream, name),
      `$JS.ACK.${stream}.${name}.>`,
      subjects.deadLetter(name),
    ],
  };
}

function registryUse(subjects: Subjects, mode: 'read' | 'write', criticToken = '*'): string[] {
  const bucket = subjects.criticsBucket;
  const stream = `KV_${bucket}`;
  const open = [jsApi('STREAM.INFO', stream), jsApi('STREAM.CREATE', stream)];
  return mode === 'read'
    ? [...open, jsApi('STREAM.MSG.GET', stream)]
    : [...open, `$KV.${bucket}.${criticToken === '*' ? '>' : `${criticToken}.>`}`];
}

/** A KV bucket a service reads and writes whole (opens or creates it, gets, puts and deletes keys). */
function bucketUse(bucket: string): string[] {
  const stream = `KV_${bucket}`;
  return [
    jsApi('STREAM.INFO', stream),
    jsApi('STREAM.CREATE', stream),
    jsApi('STREAM.MSG.GET', stream),
    `$KV.${bucket}.>`,
  ];
}

function inboxOf(name: string): string {
  return `_INBOX.${subjectToken(name)}`;
}

function identity(
  name: string,
  role: Role,
  description: string,
  publish: readonly string[],
  options: {
    readonly deny?: readonly string[];
    readonly subscribe?: readonly string[];
    readonly allowResponses?: boolean;
  } = {},
): NatsIdentity {
  const inboxPrefix = inboxOf(name);
  return {
    name,
    role,
    description,
    publish: { allow: [...new Set(publish)], deny: [...(options.deny ?? [])] },
    subscribe: { allow: [`${inboxPrefix}.>`, ...(options.subscribe ?? [])] },
    allowResponses: options.allowResponses ?? false,
    inboxPrefix,
  };
}

/** One fleet service: its consumers, publishes, the journal's read queries, its answers. */
function serviceIdentity(subjects: Subjects, service: string, use: ServiceBusUse): NatsIdentity {
  const publish: string[] = [jsApi('INFO'), ...streamProvisioning(subjects)];
  for (const { handler, selector } of use.consumes)
    publish.push(...durableUse(subjects, service, handler, selector).publish);
  // A consumer counts the deliveries that were not attempts in the namespace's delivery ledger.
  if (use.consumes.length > 0) publish.push(...bucketUse(subjects.deliveriesBucket));
  if (use.journalClaim === true) publish.push(...bucketUse(subjects.journalBucket));
  for (const type of use.publishes) publish.push(eventPattern(subjects, type));
  if (use.registry !== 'none') publish.push(...registryUse(subjects, use.registry));
  // Every journal query but those reserved to ops (the journal too: its readiness check asks itself).
  publish.push(subjects.journalQueryFilter);
  const subscribe = [
    ...use.answers.map((op) => operationSubject(subjects, op)),
    ...(use.follows ?? []).map((type) => eventPattern(subjects, type)),
  ];
  return identity(service, 'service', use.description, publish, {
    deny: OPS_ONLY_QUERIES.map((op) => requestSubject(subjects, op)),
    subscribe,
    allowResponses: use.answers.length > 0,
  });
}

/** May only post plans (request `plans.submit`) and read the gate's reply. */
function submitterIdentity(subjects: Subjects): NatsIdentity {
  return identity('submitter', 'submitter', 'posts plans (request plans.submit) and reads the reply, nothing else', [
    subjects.planSubmit,
  ]);
}

/**
 * Reads escalations as they are raised, decides (LoopResumed, LoopStopped), queries the journal
 * (rebuild included: only ops may) and lists the critic registry. Never writes any other event.
 */
function opsIdentity(subjects: Subjects): NatsIdentity {
  const critics = subjects.streams.critics;
  return identity(
    'ops',
    'ops',
    'follows escalations, resumes or stops loops, queries the journal (rebuild included), lists critics',
    [
      subjects.journalQueryFilter,
      eventPattern(subjects, 'LoopResumed'),
      eventPattern(subjects, 'LoopStopped'),
      jsApi('INFO'),
      ...registryUse(subjects, 'read').filter((s) => !s.includes('STREAM.CREATE')),
      jsApi('STREAM.INFO', critics),
      jsApi('STREAM.MSG.GET', critics),
    ],
    { subscribe: [eventPattern(subjects, 'EscalationRaised')] },
  );
}

/** The NATS user name of an external critic: `critic-<id as a token>`, as its durable consumer's prefix. */
export function criticUserName(criticId: string): string {
  return criticServiceName(criticId);
}

/**
 * One external critic (any language): takes its own dispatches, publishes its own reports,
 * registration, heartbeats and registry entry — every subject ends with its own id — and may ask
 * the journal whether it already answered (`journal.event`).
 */
function criticIdentity(subjects: Subjects, criticId: string): NatsIdentity {
  const name = criticUserName(criticId);
  const token = subjectToken(criticId);
  const dispatch = durableUse(subjects, name, 'dispatch', 'RoundStarted');
  const bucketStream = `KV_${subjects.criticsBucket}`;
  const ledger = `KV_${subjects.deliveriesBucket}`;
  const publish = [
    jsApi('INFO'),
    ...Object.values(subjects.streams).map((stream) => jsApi('STREAM.INFO', stream)),
    jsApi('STREAM.INFO', bucketStream),
    ...dispatch.publish,
    // The delivery records of its own consumer only (the fleet creates the ledger; a critic reads it and writes its own keys).
    jsApi('STREAM.INFO', ledger),
    jsApi('STREAM.MSG.GET', ledger),
    `$KV.${subjects.deliveriesBucket}.${dispatch.name}.>`,
    ...(['FindingsReported', 'CriticFailed'] as const).map((type) => eventPattern(subjects, type, criticId)),
    subjects.event('CriticRegistered', criticId),
    subjects.event('CriticHeartbeat', criticId),
    `$KV.${subjects.criticsBucket}.${token}.>`,
    requestSubject(subjects, 'journal.event'),
  ];
  return identity(
    name,
    'critic',
    `the external critic ${criticId}: its own dispatches, reports, heartbeats and registry entry`,
    publish,
  );
}

export interface FleetPermissionsOptions {
  readonly namespace: string;
  /** Ids of external critics (SDK or any language), each with a user of its own. */
  readonly critics?: readonly string[];
}

/** Every identity of a fleet: the services, submitter, ops, and one per external critic. */
export function fleetPermissions(options: FleetPermissionsOptions): NatsIdentity[] {
  const subjects = subjectsFor(options.namespace);
  const critics = [...new Set(options.critics ?? [])];
  return [
    ...Object.entries(FLEET_BUS_USE).map(([service, use]) => serviceIdentity(subjects, service, use)),
    submitterIdentity(subjects),
    opsIdentity(subjects),
    ...critics.map((critic) => criticIdentity(subjects, critic)),
  ];
}
