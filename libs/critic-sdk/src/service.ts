import {
  Controller,
  type DynamicModule,
  Inject,
  type LoggerService,
  Module,
  type OnApplicationShutdown,
} from '@nestjs/common';
import {
  BUS_REQUESTER,
  BusAuthError,
  BusConnectionError,
  CLOCK,
  type Clock,
  EVENT_PUBLISHER,
  type EventContext,
  type EventPublisher,
  JetStreamClient,
  OnEvent,
  type Requester,
  type RunningService,
  ServiceLogger,
  startService,
  stopOnSignals,
} from '@rloop/bus';
import { type EventOf, describeError } from '@rloop/contracts';
import { RepoPolicy } from '@rloop/critics';
import { checkoutForWorker } from '@rloop/git';
import { JournalClient } from '@rloop/journal-client';
import { type DispatchOutcome, type RoundHost, answerRound } from './answer-round.js';
import type { ServiceCritic } from './define.js';
import { CRITIC_SDK_ERROR_CODES, CriticServiceStartError } from './errors.js';
import {
  type CheckoutProvider,
  type CriticServiceOptions,
  type ResolvedCriticServiceOptions,
  criticServiceName,
  resolveCriticServiceOptions,
} from './options.js';
import { CriticPresence } from './presence.js';

export interface RunningCriticService {
  readonly criticId: string;
  readonly instanceId: string;
  /** The durable consumer every replica of this critic shares (a queue group). */
  readonly consumer: string;
  /** The heartbeat interval in use (may be shorter than asked: see CriticServiceOptions). */
  readonly heartbeatIntervalMs: number;
  /** Withdraws from the registry, lets running reviews finish (bounded), then closes. Idempotent. */
  stop(): Promise<void>;
}

/** What the dispatch controller of a critic service works with. */
interface Runtime {
  readonly critic: ServiceCritic;
  readonly host: RoundHost;
  readonly logger: LoggerService;
  /** Aborted at shutdown: reviews still running are cancelled and their rounds redelivered. */
  readonly abort: AbortController;
  /** Rounds being answered now (reported in heartbeats). */
  inFlight: number;
}

const RUNTIME = Symbol.for('rloop.critic-sdk.runtime');

/**
 * A plan given by URL is read from this service's own cache of the repository under its work root
 * (the pinned commit fetched by sha), so a critic service needs no disk shared with the gate; a
 * plan given by local path is read in place (a fleet on one host).
 */
const defaultCheckout: CheckoutProvider = async (round, workRoot) =>
  (await checkoutForWorker({ path: round.repo_path, url: round.repo_url }, round.commit, workRoot)).dir;

/**
 * What a reviewed repository may change for a critic service: the fleet's default policy
 * (config/repo-policy.yaml as shipped), since a critic service does not read the operator's config.
 */
const SERVICE_REPO_POLICY = RepoPolicy.parse({});

/** How a critic service answers rounds (answerRound): its one critic, on the checkout its options give. */
export function criticServiceHost(
  critic: ServiceCritic,
  settings: ResolvedCriticServiceOptions,
  producer: string,
  checkout: CheckoutProvider = defaultCheckout,
): RoundHost {
  return {
    producer,
    workRoot: settings.workRoot,
    maxFileBytes: settings.maxFileBytes,
    repoPolicy: SERVICE_REPO_POLICY,
    critic: (criticId) => (criticId === critic.id ? critic : null),
    checkout,
  };
}

/**
 * Takes the RoundStarted dispatches of one critic through a durable consumer its replicas share,
 * and answers each round it is on once: FindingsReported or CriticFailed.
 */
@Controller()
class DispatchController implements OnApplicationShutdown {
  private readonly journal: JournalClient;

  constructor(
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(BUS_REQUESTER) requester: Requester,
    @Inject(RUNTIME) private readonly runtime: Runtime,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.journal = new JournalClient(requester, 5_000);
  }

  onApplicationShutdown(): void {
    // Reviews still running after the drain bound: cancel them; their rounds are redelivered.
    this.runtime.abort.abort();
  }

  @OnEvent('RoundStarted', { name: 'dispatch' })
  async onRoundStarted(event: EventOf<'RoundStarted'>, context: EventContext): Promise<DispatchOutcome> {
    const rt = this.runtime;
    rt.inFlight += 1;
    try {
      const ports = { publisher: this.publisher, journal: this.journal, clock: this.clock, logger: rt.logger };
      const outcomes = await answerRound(rt.host, ports, event, {
        deliveries: context.deliveries,
        signal: rt.abort.signal,
      });
      return outcomes.get(rt.critic.id) ?? 'not_dispatched';
    } finally {
      rt.inFlight -= 1;
    }
  }
}

@Module({})
class CriticServiceModule {
  static forRoot(runtime: Runtime): DynamicModule {
    return {
      module: CriticServiceModule,
      controllers: [DispatchController],
      providers: [{ provide: RUNTIME, useValue: runtime }],
    };
  }
}

/**
 * Runs a critic as its own service: connects to the fleet's NATS, binds the critic's durable
 * consumer (shared by its replicas), announces itself and heartbeats, and answers every round it
 * is dispatched to with FindingsReported or CriticFailed, within the dispatch's timeout. On
 * SIGTERM it withdraws from the registry, lets running reviews finish, and exits.
 *
 * @example
 *   await runCriticService(critic, { natsUrl: 'nats://127.0.0.1:4222', namespace: 'rloop' });
 */
export async function runCriticService(
  critic: ServiceCritic,
  options: CriticServiceOptions,
): Promise<RunningCriticService> {
  const settings = resolveCriticServiceOptions(options);
  const name = criticServiceName(critic.id);
  const logger = options.logger ?? new ServiceLogger(name, { format: settings.logFormat });
  const producer = `critic:${critic.id}@${settings.instanceId}`.slice(0, 200);
  const runtime: Runtime = {
    critic,
    host: criticServiceHost(critic, settings, producer, options.checkout),
    logger,
    abort: new AbortController(),
    inFlight: 0,
  };
  let service: RunningService;
  try {
    service = await startService({
      name,
      module: CriticServiceModule.forRoot(runtime),
      bus: {
        servers: settings.servers,
        credentials: settings.credentials,
        tls: settings.tls,
        inboxPrefix: settings.inboxPrefix,
        namespace: settings.namespace,
        connect: { timeoutMs: settings.connectTimeoutMs },
        shutdownTimeoutMs: settings.shutdownTimeoutMs,
        consumer: { concurrency: settings.concurrency },
      },
      logger,
      handleSignals: false,
      exitOnFailure: false,
    });
  } catch (error) {
    if (error instanceof BusAuthError)
      throw new CriticServiceStartError(CRITIC_SDK_ERROR_CODES.connectFailed, `${critic.id}: ${error.message}`, {
        cause: error,
      });
    if (error instanceof BusConnectionError) {
      throw new CriticServiceStartError(
        CRITIC_SDK_ERROR_CODES.connectFailed,
        `${critic.id}: cannot reach NATS at ${settings.servers.join(', ')}: ${error.message}`,
        { cause: error },
      );
    }
    throw new CriticServiceStartError(
      CRITIC_SDK_ERROR_CODES.startFailed,
      `${critic.id}: could not start: ${describeError(error)}`,
      { cause: error },
    );
  }
  let presence: CriticPresence;
  try {
    // Announced only once its consumer is bound: a round dispatched from now on waits in the durable.
    const client = service.app.get(JetStreamClient);
    presence = await CriticPresence.start({
      connection: await client.connect(),
      publisher: client,
      namespace: settings.namespace,
      critics: [critic],
      instanceId: settings.instanceId,
      producer,
      heartbeatIntervalMs: settings.heartbeatIntervalMs,
      version: settings.version,
      inFlight: () => runtime.inFlight,
      logger,
    });
  } catch (error) {
    await service.stop();
    throw new CriticServiceStartError(
      CRITIC_SDK_ERROR_CODES.startFailed,
      `${critic.id}: could not register: ${describeError(error)}`,
      { cause: error },
    );
  }
  logger.log(
    `${critic.id}: registered as ${settings.instanceId} (heartbeat every ${presence.heartbeatIntervalMs} ms)`,
    'CriticService',
  );
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await presence.withdraw();
      await service.stop();
    })();
    return stopping;
  };
  if (settings.handleSignals) stopOnSignals(name, stop, logger);
  return {
    criticId: critic.id,
    instanceId: settings.instanceId,
    consumer: service.consumers[0] ?? '',
    heartbeatIntervalMs: presence.heartbeatIntervalMs,
    stop,
  };
}
