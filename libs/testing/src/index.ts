// Helpers for tests that talk to the real NATS and PostgreSQL on this machine.
export { TEST_NATS_URL, TEST_POSTGRES_ADMIN_URL } from './environment.js';
export { uniqueNamespace } from './names.js';
export { createTestDatabase, type TestDatabase } from './postgres.js';
export { eventually, type EventuallyOptions } from './wait.js';
