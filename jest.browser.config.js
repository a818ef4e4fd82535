// The browser tests (*.browser.*.spec.ts): the console in Debian's Chromium, driven by
// playwright-core, against a running fleet. `npm run test:browser`; CI runs it after `npm test`.
import base from './jest.config.js';

/** @type {import('jest').Config} */
export default {
  ...base,
  testMatch: ['**/src/**/*.browser.*.spec.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  maxWorkers: 1,
  testTimeout: 240_000,
};
