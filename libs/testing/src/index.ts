// Helpers for tests that talk to the real NATS and PostgreSQL on this machine.
export { TEST_NATS_URL, TEST_POSTGRES_ADMIN_URL } from './environment.js';
export { uniqueNamespace } from './names.js';
export { createTestDatabase, type TestDatabase } from './postgres.js';
export { eventually, type EventuallyOptions } from './wait.js';
export {
  startFakeAnthropic,
  fakeTurn,
  fakeTokens,
  FAKE_STOP_REASONS,
  type FakeAnthropic,
  type FakeAnthropicOptions,
  type FakeContentBlock,
  type FakeError,
  type FakeMessagesRequest,
  type FakeRecordedRequest,
  type FakeReply,
  type FakeScript,
  type FakeStep,
  type FakeStopReason,
  type FakeTurn,
  type FakeUsage,
  type FakeTiming,
} from './fake-anthropic.js';
export {
  startPrivateNatsServer,
  startPrivateNatsCluster,
  type PrivateNatsServer,
  type PrivateNatsServerOptions,
  type PrivateNatsCluster,
  type PrivateNatsClusterOptions,
  type PrivateNatsNode,
} from './nats-server.js';
export { startPrivatePostgresServer, type PrivatePostgresServer } from './postgres-server.js';
export { connectTestNats, deleteNamespaceStreams, subjectMatches, type TestNats, type StoredMessage } from './nats.js';
export { INVOICE_SIGNATURE, RED_TEST, RED_TEST_PATH, SEQUENCE_GUARD } from './scripted-fix.js';
export { freePort, portAccepts } from './ports.js';
export {
  startFakeGitHub,
  type FakeGitHub,
  type FakeGitHubOptions,
  type FakeGitHubRequest,
  type FakePull,
  type FakePullFile,
  type FakeReviewComment,
  type FakeIssueComment,
} from './fake-github.js';
export {
  natsOperator,
  makeTestPki,
  type NatsOperator,
  type JwtUserPermissions,
  type TestPki,
} from './nats-credentials.js';
export { writeZip, type ZipInput } from './zip.js';
export { startFakeNpmRegistry, type BulkAdvisory, type FakeNpmRegistry } from './fake-npm-registry.js';
export { startGitDaemon, type GitDaemon } from './git-daemon.js';
