// One jest run for the whole workspace. NestJS 12 is ESM-only, so tests run as native ESM
// (see docs/development.md); ts-jest transpiles each file in isolation and `tsc` does the
// type-checking, which keeps the run fast.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/apps', '<rootDir>/deploy'],
  testMatch: ['**/src/**/*.spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^@rloop/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.spec.json' }],
  },
  maxWorkers: 2,
  testTimeout: 30_000,
};
