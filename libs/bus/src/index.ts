// The NestJS transport over NATS JetStream: durable consumers, validation both ways, dead letters,
// graceful drain, and the service bootstrap. See README.md for the ack/nak/term table.
export { JetStreamServer } from './server.js';
export {
  JetStreamClient,
  type EventPublisher,
  type PublishReceipt,
  type Requester,
  type RequestOptions,
} from './client.js';
export {
  OnEvent,
  OnEventBatch,
  OnRequest,
  JETSTREAM_TRANSPORT,
  type OnEventOptions,
  type OnEventBatchOptions,
  type SelectedEvent,
} from './decorators.js';
export { EventContext, BatchContext, RequestContext, type DeliveryInfo } from './context.js';
export { BusModule, EVENT_PUBLISHER, BUS_REQUESTER } from './module.js';
export { startService, stopOnSignals, type StartServiceOptions, type RunningService } from './bootstrap.js';
export {
  RuntimeModule,
  CLOCK,
  SERVICE_IDENTITY,
  SYSTEM_CLOCK,
  processIdentity,
  type Clock,
  type ServiceIdentity,
} from './runtime.js';
export {
  ServiceLogger,
  LOG_FORMATS,
  LOG_LEVEL_NAMES,
  nestLevelsFrom,
  type LogFormat,
  type LogLevelName,
  type LogSink,
  type ServiceLoggerOptions,
} from './logger.js';
export { withLogContext, currentLogContext, logContextOf, type LogContext } from './log-context.js';
export { SETTLEMENTS, type BusObserver, type Settlement } from './observer.js';
export {
  BUS_ERROR_CODES,
  type BusErrorCode,
  RetryLaterError,
  BusConnectionError,
  BusAuthError,
  BusPermissionError,
  BusPublishError,
  BusRequestError,
  RemoteError,
  RemoteTransientError,
  BusConfigError,
} from './errors.js';
export {
  resolveBusOptions,
  DEFAULT_CONSUMER_POLICY,
  DEFAULT_STREAM_LIMITS,
  DEFAULT_CONNECT,
  type BusOptions,
  type ResolvedBusOptions,
  type BackoffOptions,
  type ConsumerPolicy,
  type ConsumerOverrides,
  type StreamLimits,
  type ConnectOptions,
} from './options.js';
export {
  ALL_JOURNALED_EVENTS,
  type ChannelSelector,
  type EventSelector,
  type RequestOperation,
  subjectOf,
  subjectKeyOf,
  requestSubject,
  durableName,
  consumerTarget,
} from './routing.js';
export { decodeJsonBody, decodeEventMessage, type DecodeResult } from './codec.js';
export { type BusStatus, type ErrorReply, isErrorReply, toErrorReply } from './replies.js';
export { provisionStreams, streamSpecs } from './streams.js';
export {
  backoffDelay,
  decideFailure,
  buildDeadLetter,
  deadLetterMsgId,
  type FailureDisposition,
} from './disposition.js';
export {
  CommonEnvironment,
  NatsEnvironment,
  natsConnectionSettings,
  parseEnvironment,
  resolveDir,
  loadYamlConfig,
  DEFAULT_CONFIG_DIR,
  commonSettings,
  type CommonSettings,
  type OpsSettings,
  type NatsConnectionSettings,
} from './service-config.js';
export { Secret, withoutUserInfo, describeCredentials, type BusCredentials, type BusTls } from './auth.js';
export { KvBucket, bucketStreamConfig, type KvEntry, type KvBucketOptions } from './kv.js';
export {
  KvDeliveryLedger,
  MemoryDeliveryLedger,
  DELIVERY_RECORD_MAX_AGE_MS,
  type DeliveryLedger,
  type DeliveryRecord,
} from './delivery-ledger.js';
export { messageIdOf } from './client.js';
export {
  CriticHealthEntry,
  CRITIC_HEALTH_DEFAULTS,
  CRITIC_HEALTH_STATES,
  criticHealthKey,
  openCriticHealthBucket,
  findCriticHealthBucket,
  effectiveHeartbeatMs,
  instanceHealth,
  summariseRegistry,
  encodeCriticHealthEntry,
  decodeCriticHealthEntry,
  readCriticRegistry,
  type CriticHealthState,
  type CriticInstanceHealth,
  type RegisteredCritic,
  type CriticRegistrySnapshot,
  type StoredHealthEntry,
} from './critic-health.js';
