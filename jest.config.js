// One jest run for the whole workspace. NestJS 12 is ESM-only, so tests run as native ESM
// (see the README's development notes); ts-jest transpiles each file in isolation and `tsc` does the
// type-checking, which keeps the run fast.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/apps', '<rootDir>/deploy'],
  testMatch: ['**/src/**/*.spec.ts'],
  // Browser tests drive Chromium and run on their own: `npm run test:browser` (jest.browser.config.js);
  // the chaos test takes minutes: `npm run test:chaos` runs it (and .ci/run), not `npm test`;
  // the node-kill stall is a measurement: `npm run bench:node-kill`.
  testPathIgnorePatterns: [
    '/node_modules/',
    '\\.browser\\.',
    '/src/chaos/chaos\\.e2e\\.spec\\.ts$',
    '/src/e2e/node-kill-stall\\.e2e\\.spec\\.ts$',
    '/src/e2e/multihost\\.e2e\\.spec\\.ts$',
  ],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^@rloop/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.spec.json' }],
  },
  maxWorkers: 2,
  // A worker that ran the integration suites holds a few hundred MB of per-file module registries;
  // on a loaded 2-core machine tearing that down after its 'exit' event can outlast jest's 500 ms
  // default, and jest then reports a leak that is none (measured: no active handle is left after
  // any file's teardown, and 'exit' fires at once). A real leak still shows after 5 s.
  workerGracefulExitTimeout: 5_000,
  testTimeout: 30_000,
};
