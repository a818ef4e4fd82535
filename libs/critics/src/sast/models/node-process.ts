import type { FrameworkModel } from './types.js';

/** Node's process: the command line and the environment. */
export const nodeProcessModel: FrameworkModel = {
  id: 'node:process',
  description: 'process.argv (argv), process.env.* (env).',
  entryHint: /process\.(env|argv)/,
  globalObjects: { process: 'process' },
  globals: [
    { object: 'process', property: 'env', yields: { global: 'process.env' } },
    { object: 'process', property: 'argv', yields: { origin: 'argv' } },
    { object: 'process.env', property: '*', yields: { origin: 'env' } },
  ],
};
