// Where the tests find the real servers. The one library that reads process.env: tests run
// without a service config, and CI may point them elsewhere.
export const TEST_NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
/** An admin connection used to create and drop one database per spec file. */
export const TEST_POSTGRES_ADMIN_URL =
  process.env['TEST_POSTGRES_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
